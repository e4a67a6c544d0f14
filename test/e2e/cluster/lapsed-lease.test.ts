/**
 * A draining node hands its connections over, on a real PostgreSQL: while its server closes, the rows of the
 * connections it hosted are left to the node that adopts them (lease expired, not ended), even when its heartbeat's
 * checks run while an end is being written. Before, a check that came in that window took the row for an orphan
 * (naming this node, no agent here) and ended it: the client's resumed stream was ended and the connection lost.
 *
 * The window is held open on purpose: the test locks the connection's row, so the node's write of the hand-over
 * waits, and runs a heartbeat meanwhile. Likewise a row whose lease lapsed on a node because its adoption there
 * failed (a busy pool under load): that node's checks leave it for the next adoption instead of ending it, for three
 * leases (then nobody will: it is ended).
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

const unavailable = postgresUnavailable();
const agent = stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] });
let database: TestPostgres | undefined;
let pool: PostgresPool | undefined;

before(async () => {
  if (unavailable !== undefined) return;
  database = await startTestPostgres();
  pool = await createPostgresPool({ connectionString: database.connectionString, logger: silentLogger, max: 3 });
});

after(async () => {
  await pool?.end();
  await database?.close();
});

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Statements of the nodes waiting for a row lock. */
async function waitingForLocks(): Promise<number> {
  const waiting = await pool!.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name <> 'locker'",
  );
  return waiting.rows[0]!.n;
}

test(
  "a draining node's heartbeat leaves its connections' rows to the adopter, also while the hand-over is written",
  { skip: unavailable, timeout: 60_000 },
  async () => {
    // No connector: this node adopts nothing back.
    const backend = await PostgresServerBackend.open({
      database: { connectionString: database!.connectionString, logger: silentLogger },
      leaseMs: 1000,
    });
    const listening = await listenAcp({ agent, backend, insecureNoToken: true, logger: silentLogger });
    const locker = await createPostgresPool({
      connectionString: database!.connectionString,
      applicationName: "locker",
      logger: silentLogger,
      max: 1,
    });
    try {
      const connectionId = await initialize({ nodes: [listening.url] }, listening.url);
      await backend.drain(0);
      let closing: Promise<void> | undefined;
      let beat: Promise<void> | undefined;
      await locker.withClient(async (lock) => {
        await lock.query("BEGIN");
        await lock.query("SELECT 1 FROM acpkit_cluster_connections WHERE connection_id = $1 FOR UPDATE", [
          connectionId,
        ]);
        closing = listening.close();
        await until("the hand-over waiting for the row", 10_000, async () => (await waitingForLocks()) >= 1);
        // The node's checks while its end is being written: a row that names the node, and no agent here.
        let beaten = false;
        beat = backend.beat().then(() => void (beaten = true));
        await until(
          "the heartbeat's checks done or waiting for the row",
          10_000,
          async () => beaten || (await waitingForLocks()) >= 2,
        );
        await lock.query("COMMIT");
      });
      await Promise.all([closing, beat]);
      const row = await pool!.query<{ ended: boolean; expired: boolean; end_reason: string | null }>(
        `SELECT ended_at IS NOT NULL AS ended, lease_expires_at < now() AS expired, end_reason
           FROM acpkit_cluster_connections WHERE connection_id = $1`,
        [connectionId],
      );
      assert.deepEqual(row.rows[0], { ended: false, expired: true, end_reason: null }, "handed over, not ended");
    } finally {
      await listening.close();
      await backend.close();
      await locker.end();
    }
  },
);

test(
  "a row whose lease lapsed on this node (an adoption here failed) is left for the next adoption, not ended",
  { skip: unavailable, timeout: 60_000 },
  async () => {
    // Node A adopts nothing (no connector) and plays the node whose adoption failed; the connection lives on node B.
    const backends = await Promise.all(
      [0, 1].map(() =>
        PostgresServerBackend.open({
          database: { connectionString: database!.connectionString, logger: silentLogger },
          leaseMs: 60_000,
        }),
      ),
    );
    const [a, b] = await Promise.all(
      backends.map((backend) => listenAcp({ agent, backend, insecureNoToken: true, logger: silentLogger })),
    );
    try {
      const connectionId = await initialize({ nodes: [b!.url] }, b!.url);
      // What a failed adoption on A leaves: the row names A, its lease lapsed at once, and A runs no agent for it.
      await pool!.query(
        `UPDATE acpkit_cluster_connections SET owner_node = $2, lease_token = lease_token + 1, lease_expires_at = now()
          WHERE connection_id = $1`,
        [connectionId, a!.server.nodeId],
      );
      await backends[0]!.beat();
      await backends[0]!.beat();
      const row = await pool!.query<{ ended: boolean; end_reason: string | null }>(
        "SELECT ended_at IS NOT NULL AS ended, end_reason FROM acpkit_cluster_connections WHERE connection_id = $1",
        [connectionId],
      );
      assert.deepEqual(row.rows[0], { ended: false, end_reason: null }, "left for the next adoption");
      // Nobody adopted it for three leases (no other node): then it is ended, not left for ever.
      await pool!.query(
        "UPDATE acpkit_cluster_connections SET lease_expires_at = now() - interval '200 seconds' WHERE connection_id = $1",
        [connectionId],
      );
      await backends[0]!.beat();
      const later = await pool!.query<{ end_reason: string | null }>(
        "SELECT end_reason FROM acpkit_cluster_connections WHERE connection_id = $1",
        [connectionId],
      );
      assert.equal(later.rows[0]!.end_reason, "agent ended", "ended once three leases passed");
    } finally {
      await Promise.all([a!.close(), b!.close()]);
      await Promise.all(backends.map((backend) => backend.close()));
    }
  },
);
