/**
 * The heartbeat's sweep on a real PostgreSQL: the shared-session rows of a session hosted on a WebSocket (no
 * connection row) by a node dead for the retention go; those of a live node, and of a live HTTP connection, stay.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { PostgresPool } from "../postgres/pool.js";
import { postgresUnavailable } from "../testing/postgres-server.js";
import { startClusterTestDatabase, type ClusterTestDatabase } from "../testing/cluster-database.js";
import { ATTACHMENTS, CONNECTIONS, NODES, SHARE_TOKENS, SHARED_SESSIONS } from "./schema.js";
import { SWEEP } from "./sweep.js";

const unavailable = postgresUnavailable();
let database: ClusterTestDatabase | undefined;
let pool: PostgresPool | undefined;

before(async () => {
  if (unavailable !== undefined) return;
  database = await startClusterTestDatabase();
  pool = database.pool;
});

after(async () => {
  await database?.close();
});

test(
  "a dead node's WebSocket-hosted sessions leave the listing, share tokens and attachments; live ones stay",
  { skip: unavailable },
  async () => {
    const db = pool!;
    await db.query(
      `INSERT INTO ${NODES} (node_id, seen_at) VALUES ('dead', now() - interval '2 minutes'), ('live', now())`,
    );
    // An HTTP connection of the dead node that has not ended yet (another node adopts it): its rows stay.
    await db.query(
      `INSERT INTO ${CONNECTIONS} (connection_id, owner_node, lease_expires_at, initialize, ready)
       VALUES ('http1', 'dead', now(), '{}', true)`,
    );
    const sessions: [string, string, string][] = [
      ["s-ws-dead", "dead", "ws-dead"],
      ["s-ws-live", "live", "ws-live"],
      ["s-http", "dead", "http1"],
    ];
    for (const [sessionId, node, host] of sessions) {
      await db.query(
        `INSERT INTO ${SHARED_SESSIONS} (session_id, node_id, host_connection, summary) VALUES ($1, $2, $3, '{}')`,
        [sessionId, node, host],
      );
      await db.query(
        `INSERT INTO ${SHARE_TOKENS} (token_hash, session_id, host_connection, node_id) VALUES ($1, $2, $3, $4)`,
        [`hash-${sessionId}`, sessionId, host, node],
      );
      await db.query(
        `INSERT INTO ${ATTACHMENTS} (session_id, connection_id, host_connection, node_id, role, history_policy,
                                     participant)
         VALUES ($1, 'p1', $2, 'live', 'observer', 'full', '{}')`,
        [sessionId, host],
      );
    }
    await db.query(SWEEP, [60_000]);
    const left = async (table: string) =>
      (await db.query<{ session_id: string }>(`SELECT session_id FROM ${table} ORDER BY session_id`)).rows.map(
        (row) => row.session_id,
      );
    for (const table of [SHARED_SESSIONS, SHARE_TOKENS, ATTACHMENTS])
      assert.deepEqual(await left(table), ["s-http", "s-ws-live"], table);
  },
);
