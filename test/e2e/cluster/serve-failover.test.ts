/**
 * A live connection outlives its node: three real `acp serve --cluster` processes (the reference agent, sessions in
 * the same PostgreSQL) behind a real HAProxy, driven by acpkit's HTTP client (which resumes its streams with
 * Last-Event-ID when a node goes away). The node running the connection's agent is killed with SIGKILL:
 * - while idle: another node adopts the connection (restarts the agent, replays initialize, reloads the session
 *   with the replay withheld) and the next prompt on the same connection succeeds, within the bound; the history
 *   loaded afterwards holds every turn once;
 * - mid-turn: the prompt in flight fails within the bound with an error that says the node went away, and the next
 *   prompt on the same connection succeeds.
 * At no point does one connection have two owners in the lease rows (sampled every 50 ms).
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { haproxyUnavailable } from "../../../src/node/testing/haproxy.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { acpkitHttp } from "../remote/support/client-transports.js";
import { remoteClient, type RemoteClient } from "../remote/support/remote-client.js";
import { startServeCluster, type ServeCluster } from "./support/serve-cluster.js";

const unavailable = postgresUnavailable() ?? haproxyUnavailable();
const STEP = { skip: unavailable, timeout: 120_000 };
/** The lease of the nodes: a dead node's connections are adopted 1 to 1.25 leases after its last renewal. */
const LEASE_MS = 2000;
/** What the issue allows from SIGKILL to a working connection again. */
const BOUND_MS = 10_000;
let database: TestPostgres | undefined;
let cluster: ServeCluster | undefined;
let work: string;

before(async () => {
  if (unavailable !== undefined) return;
  work = makeTempDir("acp-serve-failover-");
  database = await startTestPostgres();
  cluster = await startServeCluster(database, { haproxy: true, leaseMs: LEASE_MS });
});

after(async () => {
  await cluster?.stop();
  await database?.close();
  removeTempDir(work);
});

async function connect(): Promise<RemoteClient> {
  const url = `${cluster!.haproxy!.url}/acp`;
  const client = await remoteClient(acpkitHttp.open({ url, webSocketUrl: "", token: cluster!.token }), work, "acpkit");
  await client.initialize();
  return client;
}

/** The connection opened last (the one a test just made). */
async function newestConnection(): Promise<string> {
  const row = await cluster!.pool.query<{ connection_id: string }>(
    "SELECT connection_id FROM acpkit_cluster_connections WHERE ended_at IS NULL ORDER BY created_at DESC LIMIT 1",
  );
  return row.rows[0]!.connection_id;
}

/** Samples the lease rows until stopped: the owners seen per connection, in order, and any row with two owners. */
function watchOwners(connectionId: string): { stop(): Promise<string[]> } {
  const owners: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const row = await cluster!.pool.query<{ owner_node: string }>(
        "SELECT owner_node FROM acpkit_cluster_connections WHERE connection_id = $1",
        [connectionId],
      );
      const owner = row.rows[0]?.owner_node;
      if (owner !== undefined && owners.at(-1) !== owner) owners.push(owner);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return owners;
    },
  };
}

/** Runs `body`; on failure, the nodes' logs go with the error (what the cluster saw). */
async function withLogs(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const logs = cluster!.nodes
      .map((node) => `--- ${node.name} (${node.nodeId}):\n${node.process.stderr()}`)
      .join("\n");
    if (error instanceof Error) error.message += `\n${logs}`;
    throw error;
  }
}

async function killOwner(connectionId: string): Promise<{ index: number; killedAt: number }> {
  const owner = await cluster!.ownerOf(connectionId);
  assert.ok(owner, "the connection has an owner");
  const index = cluster!.nodes.indexOf(owner);
  const killedAt = Date.now();
  await cluster!.kill(index);
  return { index, killedAt };
}

test(
  "SIGKILL of the idle node running the agent: the next prompt on the same connection succeeds within the bound, the history is whole",
  STEP,
  (t) =>
    withLogs(async () => {
      const client = await connect();
      const sessionId = await client.newSession(work);
      try {
        assert.deepEqual(await client.prompt(sessionId, "/stream 3 before"), { stopReason: "end_turn" });
        const connectionId = await newestConnection();
        const owners = watchOwners(connectionId);
        const { index, killedAt } = await killOwner(connectionId);
        const from = client.host.updates.length;
        assert.deepEqual(await client.prompt(sessionId, "/stream 3 after"), { stopReason: "end_turn" });
        const failoverMs = Date.now() - killedAt;
        t.diagnostic(`SIGKILL to the next successful prompt: ${failoverMs} ms`);
        assert.ok(failoverMs < BOUND_MS, `the prompt after the kill succeeded after ${failoverMs} ms`);
        assert.deepEqual(
          client.host.texts(from, sessionId).filter((text) => /^(before|after) /.test(text)),
          ["after 1\n", "after 2\n", "after 3\n"],
          "the client saw the new turn once, and none of the replayed history",
        );
        const seen = await owners.stop();
        assert.equal(seen.length, 2, `one owner, then the adopting one: ${seen.join(" -> ")}`);
        assert.notEqual(seen[1], cluster!.nodes[index]!.nodeId);
        const adopted = await cluster!.pool.query<{ adoptions: number }>(
          "SELECT adoptions FROM acpkit_cluster_connections WHERE connection_id = $1",
          [connectionId],
        );
        assert.equal(adopted.rows[0]!.adoptions, 1);

        await cluster!.restart(index);
        await cluster!.haproxy!.waitForServer(cluster!.nodes[index]!.name, "UP");
      } finally {
        client.close();
      }
      // The session's history, loaded on a new connection once the first one ended (one agent process at a time writes
      // a session): each turn once, in order.
      const reader = await connect();
      try {
        await reader.loadSession(sessionId, work);
        // The replay comes on the session stream, the answer on the connection stream: wait for the replay too.
        const turns = () => reader.host.texts(0, sessionId).filter((text) => /^(before|after) /.test(text));
        await reader.host.until(() => turns().length >= 6, 10_000, "the replayed history").catch(() => {});
        assert.deepEqual(
          reader.host.texts(0, sessionId).filter((text) => /^(before|after) /.test(text)),
          ["before 1\n", "before 2\n", "before 3\n", "after 1\n", "after 2\n", "after 3\n"],
        );
      } finally {
        reader.close();
      }
    }),
);

test(
  "SIGKILL of the node mid-turn: that prompt fails within the bound saying so, the next one on the same connection succeeds",
  STEP,
  async (t) => {
    const client = await connect();
    try {
      const sessionId = await client.newSession(work);
      const from = client.host.updates.length;
      const running = client.prompt(sessionId, "/slow 60000").then(
        (response) => ({ ok: true as const, stopReason: response.stopReason }),
        (error: Error) => ({ ok: false as const, message: error.message }),
      );
      await client.host.until(
        () => client.host.texts(from, sessionId).some((text) => text.startsWith("Working for")),
        15_000,
        "the slow turn to start",
      );
      const connectionId = await newestConnection();
      const { index, killedAt } = await killOwner(connectionId);
      const outcome = await running;
      const failedAfterMs = Date.now() - killedAt;
      assert.equal(outcome.ok, false, `the prompt in flight failed: ${JSON.stringify(outcome)}`);
      assert.match((outcome as { message: string }).message, /went away during the turn/);
      t.diagnostic(`SIGKILL to the in-flight prompt's error: ${failedAfterMs} ms`);
      assert.ok(failedAfterMs < BOUND_MS, `it failed ${failedAfterMs} ms after the kill`);
      assert.deepEqual(await client.prompt(sessionId, "/stream 2 next"), { stopReason: "end_turn" });
      await cluster!.restart(index);
      await cluster!.haproxy!.waitForServer(cluster!.nodes[index]!.name, "UP");
    } finally {
      client.close();
    }
  },
);

test(
  "SIGTERM drains the node running the agent: it exits 0, another node adopts at once, the next prompt succeeds",
  STEP,
  (t) =>
    withLogs(async () => {
      const client = await connect();
      try {
        const sessionId = await client.newSession(work);
        assert.deepEqual(await client.prompt(sessionId, "/stream 2 drained"), { stopReason: "end_turn" });
        const connectionId = await newestConnection();
        const owner = (await cluster!.ownerOf(connectionId))!;
        const index = cluster!.nodes.indexOf(owner);
        const stoppedAt = Date.now();
        const status = await owner.process.stop("SIGTERM", 15_000);
        assert.deepEqual(status, { code: 0, signal: null }, "acp serve exits 0 after draining");
        assert.deepEqual(await client.prompt(sessionId, "/stream 2 adopted"), { stopReason: "end_turn" });
        const ms = Date.now() - stoppedAt;
        t.diagnostic(`SIGTERM to the next successful prompt: ${ms} ms`);
        assert.ok(ms < BOUND_MS, `${ms} ms`);
        const now = await cluster!.ownerOf(connectionId);
        assert.ok(now !== undefined && now !== owner, "another node owns it now");
        await cluster!.restart(index);
        await cluster!.haproxy!.waitForServer(cluster!.nodes[index]!.name, "UP");
      } finally {
        client.close();
      }
    }),
);

test(
  "SIGKILL while the client is asked for a permission: the request is cancelled at the client, the prompt fails, the next one succeeds",
  STEP,
  (t) =>
    withLogs(async () => {
      const client = await connect();
      try {
        const sessionId = await client.newSession(work);
        client.host.permissionPolicy = "wait-for-cancel";
        const running = client.prompt(sessionId, "/write asked.txt hello").then(
          () => "answered",
          (error: Error) => error.message,
        );
        await client.host.until(() => client.host.permissionRequests.length === 1, 15_000, "the permission request");
        const { index, killedAt } = await killOwner(await newestConnection());
        await client.host.until(
          () => client.host.permissionSignalAborted,
          BOUND_MS,
          "the permission request cancelled",
        );
        t.diagnostic(`SIGKILL to the permission request's cancellation: ${Date.now() - killedAt} ms`);
        assert.match(await running, /went away during the turn/);
        client.host.permissionPolicy = "allow";
        assert.deepEqual(await client.prompt(sessionId, "/stream 2 next"), { stopReason: "end_turn" });
        await cluster!.restart(index);
        await cluster!.haproxy!.waitForServer(cluster!.nodes[index]!.name, "UP");
      } finally {
        client.close();
      }
    }),
);
