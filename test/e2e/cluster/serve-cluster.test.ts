/**
 * Three real `acp serve --cluster` processes (the reference agent, its sessions in the same database) on one real
 * PostgreSQL, behind a real HAProxy configured from examples/cluster/haproxy.cfg (round-robin, health checks on
 * /readyz, no stickiness): the official SDK's HTTP client, unchanged, runs a whole session through the balancer (a
 * streamed turn, a permission, a file write and read through the client); every node is ready and serves metrics
 * behind the token; a 20,000-chunk turn is read in pieces from the three nodes with Last-Event-ID, exactly.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { haproxyUnavailable } from "../../../src/node/testing/haproxy.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { officialHttp } from "../remote/support/client-transports.js";
import { remoteClient } from "../remote/support/remote-client.js";
import { resumeScenario } from "./support/scenarios.js";
import { startServeCluster, type ServeCluster } from "./support/serve-cluster.js";

const unavailable = postgresUnavailable() ?? haproxyUnavailable();
const STEP = { skip: unavailable, timeout: 120_000 };
let database: TestPostgres | undefined;
let cluster: ServeCluster | undefined;
let work: string;

before(async () => {
  if (unavailable !== undefined) return;
  work = makeTempDir("acp-serve-cluster-");
  database = await startTestPostgres();
  cluster = await startServeCluster(database, { haproxy: true });
});

after(async () => {
  await cluster?.stop();
  await database?.close();
  removeTempDir(work);
});

test(
  "the official SDK's HTTP client through HAProxy round-robin: a streamed turn, a permission, a file written and read",
  STEP,
  async () => {
    const url = `${cluster!.haproxy!.url}/acp`;
    const client = await remoteClient(officialHttp.open({ url, webSocketUrl: "", token: cluster!.token }), work);
    try {
      const initialized = await client.initialize();
      assert.equal(initialized.agentCapabilities?.loadSession, true);
      const sessionId = await client.newSession(work);
      assert.deepEqual(await client.prompt(sessionId, "/stream 200 part"), { stopReason: "end_turn" });
      const streamed = client.host.texts(0, sessionId).filter((text) => text.startsWith("part "));
      assert.deepEqual(
        streamed,
        Array.from({ length: 200 }, (_, i) => `part ${i + 1}\n`),
      );
      assert.deepEqual(await client.prompt(sessionId, "/write note.txt hello cluster"), { stopReason: "end_turn" });
      assert.equal(client.host.permissionRequests.length, 1, "the write asked for permission (ask mode)");
      assert.equal(readFileSync(join(work, "note.txt"), "utf8"), "hello cluster");
      const before = client.host.updates.length;
      assert.deepEqual(await client.prompt(sessionId, "/read note.txt"), { stopReason: "end_turn" });
      assert.ok(
        client.host.texts(before, sessionId).some((text) => text.includes("Read note.txt: 1 line, 13 characters")),
        `the file read: ${JSON.stringify(client.host.texts(before, sessionId))}`,
      );
    } finally {
      client.close();
    }
    // Round-robin really spread the requests: every node served some.
    const served = await Promise.all(
      cluster!.nodes.map(async (node) => {
        const metrics = await (
          await fetch(node.process.url.replace(/\/acp$/, "/metrics"), {
            headers: { authorization: `Bearer ${cluster!.token}` },
          })
        ).text();
        return Number(/acpkit_cluster_db_lookup_seconds_count\{[^}]*\} (\d+)/.exec(metrics)?.[1] ?? 0);
      }),
    );
    assert.ok(
      served.every((count) => count > 0),
      `requests per node: ${served.join(", ")}`,
    );
  },
);

test("every node is ready (/readyz) and serves Prometheus metrics behind the token (/metrics)", STEP, async () => {
  for (const node of cluster!.nodes) {
    const base = node.process.url.replace(/\/acp$/, "");
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    const refused = await fetch(`${base}/metrics`);
    await refused.body?.cancel();
    assert.equal(refused.status, 401, "metrics need the token");
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${cluster!.token}` } });
    assert.match(metrics.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    for (const name of [
      "acpkit_server_connections",
      "acpkit_cluster_agents",
      "acpkit_cluster_connections",
      "acpkit_cluster_streams_open",
      "acpkit_cluster_adoptions_total",
      "acpkit_cluster_db_heartbeat_seconds",
    ])
      assert.match(text, new RegExp(`^${name}(\\{[^}]*\\})? \\S+$`, "m"), `${name} in:\n${text}`);
    assert.match(text, new RegExp(`node="${node.nodeId}"`));
    assert.doesNotMatch(text, new RegExp(database!.password), "no credential in the metrics");
  }
});

test("a 20,000-chunk turn read in pieces from the three nodes with Last-Event-ID arrives exactly", STEP, async () => {
  const report = await resumeScenario(
    { nodes: cluster!.nodes.map((node) => node.process.url), token: cluster!.token },
    { prompt: (chunks) => `/stream ${chunks} c`, chunk: (i) => `c ${i + 1}\n` },
  );
  assert.equal(report.chunks, 20_000);
  assert.ok(report.resumes >= 4, `resumed ${report.resumes} times`);
  assert.equal(report.nodesRead, 3);
});

test("no node logged the database password", STEP, () => {
  for (const node of cluster!.nodes) assert.ok(!node.process.stderr().includes(database!.password), node.name);
});
