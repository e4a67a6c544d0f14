/**
 * Fencing, on a real PostgreSQL: a node whose lease on a connection was taken (here by an UPDATE that does what an
 * adopting node's does: a new owner and a higher token) stops that connection's agent and writes nothing more for
 * it, neither from its heartbeat nor from the agent's output in flight; and a database restart is ridden out (the
 * nodes reconnect by themselves, and a new connection works once it is back).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../../src/jsonrpc/logger.js";
import { PostgresServerBackend } from "../../../src/node/cluster/index.js";
import { createPostgresPool, type PostgresPool } from "../../../src/node/postgres/pool.js";
import { listenAcp } from "../../../src/node/server/listen.js";
import { stdioAgentConnector } from "../../../src/node/server/stdio-agent-connector.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { fixturePath } from "../interop/support/spawn.js";
import { initialize } from "./support/scenarios.js";
import { mustOpen, post } from "./support/node-client.js";

type Listening = Awaited<ReturnType<typeof listenAcp>>;

const unavailable = postgresUnavailable();
const STEP = { skip: unavailable, timeout: 60_000 };
const agent = stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] });
let database: TestPostgres | undefined;
let pool: PostgresPool | undefined;
const backends: PostgresServerBackend[] = [];
const servers: Listening[] = [];

before(async () => {
  if (unavailable !== undefined) return;
  database = await startTestPostgres();
  pool = await createPostgresPool({ connectionString: database.connectionString, logger: silentLogger, max: 2 });
  for (let i = 0; i < 2; i++) {
    const backend = await PostgresServerBackend.open({
      database: { connectionString: database.connectionString, logger: silentLogger },
      // No connector: these nodes adopt nothing (the test plays the adopting node).
      leaseMs: 1000,
    });
    backends.push(backend);
    servers.push(await listenAcp({ agent, backend, insecureNoToken: true, logger: silentLogger }));
  }
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(backends.map((backend) => backend.close()));
  await pool?.end();
  await database?.close();
});

const target = () => ({ nodes: servers.map((server) => server.url) });

async function until(what: string, ms: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function eventCount(connectionId: string): Promise<number> {
  const counted = await pool!.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM acpkit_cluster_events WHERE connection_id = $1",
    [connectionId],
  );
  return counted.rows[0]!.n;
}

test(
  "a node that lost a connection's lease stops its agent mid-turn and writes nothing more for it",
  STEP,
  async () => {
    const [a] = servers;
    const connectionId = await initialize(target(), a!.url);
    const stream = await mustOpen(target(), a!.url, { connectionId });
    const created = await post(
      target(),
      a!.url,
      { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } },
      { connectionId },
    );
    assert.equal(created.status, 202);
    const sessionId: string = (await stream.expect("the session/new response")).data.result.sessionId;
    await stream.close();
    assert.equal(a!.server.connectionCount, 1);
    // A long turn, writing all the while.
    const prompt = {
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "stream 200000" }] },
    };
    assert.equal((await post(target(), a!.url, prompt, { connectionId, sessionId })).status, 202);
    await until("the turn writing", 10_000, async () => (await eventCount(connectionId)) > 1000);

    // Another node takes the lease (what adoption does).
    await pool!.query(
      "UPDATE acpkit_cluster_connections SET owner_node = 'another-node', lease_token = lease_token + 1 WHERE connection_id = $1",
      [connectionId],
    );
    const takenAt = await eventCount(connectionId);
    await until("the agent stopped", 10_000, () => a!.server.connectionCount === 0 && agent.running.size === 0);
    const afterStop = await eventCount(connectionId);
    // Only what was committed before the takeover: the batch in flight then is excluded by its fencing check.
    assert.ok(afterStop - takenAt <= 2000, `at most one batch raced the takeover: ${afterStop - takenAt} events`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(await eventCount(connectionId), afterStop, "nothing written after the agent stopped");
    const row = await pool!.query<{ owner_node: string; ended_at: Date | null }>(
      "SELECT owner_node, ended_at FROM acpkit_cluster_connections WHERE connection_id = $1",
      [connectionId],
    );
    assert.deepEqual(
      row.rows[0],
      { owner_node: "another-node", ended_at: null },
      "the fenced node did not end it either",
    );
    const metrics = await (await fetch(a!.url.replace(/\/acp$/, "/metrics"))).text();
    assert.match(metrics, /^acpkit_cluster_fenced_total\{[^}]*\} 1$/m);
  },
);

test(
  "a database restart: nodes report not ready while it is down, reconnect by themselves, and serve again",
  STEP,
  async () => {
    const readyz = (server: Listening) => fetch(server.url.replace(/\/acp$/, "/readyz")).then((r) => r.status);
    for (const server of servers) assert.equal(await readyz(server), 200);
    await database!.stop("fast");
    for (const server of servers)
      await until("not ready while the database is down", 10_000, async () => (await readyz(server)) === 503);
    const refused = await post(target(), servers[0]!.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1 },
    });
    assert.equal(refused.status, 503, `initialize while the database is down: ${refused.status} ${refused.text}`);
    await database!.start();
    for (const server of servers) await until("ready again", 20_000, async () => (await readyz(server)) === 200);
    const connectionId = await initialize(target(), servers[1]!.url);
    const answer = await post(
      target(),
      servers[0]!.url,
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "none" } },
      { connectionId, sessionId: "none" },
    );
    assert.equal(answer.status, 202, `a POST on another node after the restart: ${answer.status} ${answer.text}`);
  },
);
