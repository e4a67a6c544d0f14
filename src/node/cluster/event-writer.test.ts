/**
 * The owner's batched writes on a real PostgreSQL: what one batch may hold twice (a session seen on its stream and in
 * its answer; a prompt opened and answered), and the fencing check (a write under a token the row no longer has is
 * excluded and reported).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { PostgresPool } from "../postgres/pool.js";
import { postgresUnavailable } from "../testing/postgres-server.js";
import { startClusterTestDatabase, type ClusterTestDatabase } from "../testing/cluster-database.js";
import { EventWriter } from "./event-writer.js";
import { CONNECTIONS, EVENTS, PROMPTS, SESSIONS } from "./schema.js";

const unavailable = postgresUnavailable();
let database: ClusterTestDatabase | undefined;
let pool: PostgresPool | undefined;

before(async () => {
  if (unavailable !== undefined) return;
  database = await startClusterTestDatabase();
  pool = database.pool;
  await pool.query(
    `INSERT INTO ${CONNECTIONS} (connection_id, owner_node, lease_token, lease_expires_at, initialize, ready)
     VALUES ('c1', 'node-a', 3, now() + interval '1 minute', '{}', true)`,
  );
});

after(async () => {
  await database?.close();
});

test(
  "one batch: a session twice (the params win), a prompt opened and answered (no row), events in order",
  { skip: unavailable },
  async () => {
    const fenced: string[][] = [];
    const writer = new EventWriter({ pool: pool!, nodeId: "node-a", onFenced: (ids) => fenced.push([...ids]) });
    const base = { connectionId: "c1", token: 3 };
    const writes = [
      writer.add({ ...base, kind: "event", stream: "s1", id: 1, body: '{"a":1}' }),
      writer.add({ ...base, kind: "session", sessionId: "s1", params: undefined }),
      writer.add({ ...base, kind: "session", sessionId: "s1", params: '{"cwd":"/w","mcpServers":[]}' }),
      writer.add({ ...base, kind: "prompt", requestKind: "prompt", key: "n:7", sessionId: "s1", requestId: "7" }),
      writer.add({ ...base, kind: "answered", key: "n:7" }),
      writer.add({ ...base, kind: "prompt", requestKind: "client", key: "c:n:1", sessionId: "s1", requestId: "1" }),
      writer.add({ ...base, kind: "event", stream: "s1", id: 2, body: '{"a":2}' }),
    ];
    await Promise.all(writes);
    assert.deepEqual(fenced, []);
    const events = await pool!.query(
      `SELECT event_id::int, body FROM ${EVENTS} WHERE connection_id = 'c1' ORDER BY event_id`,
    );
    assert.deepEqual(events.rows, [
      { event_id: 1, body: '{"a":1}' },
      { event_id: 2, body: '{"a":2}' },
    ]);
    const sessions = await pool!.query(`SELECT session_id, params FROM ${SESSIONS} WHERE connection_id = 'c1'`);
    assert.deepEqual(sessions.rows, [{ session_id: "s1", params: '{"cwd":"/w","mcpServers":[]}' }]);
    const open = await pool!.query(`SELECT request_key, kind FROM ${PROMPTS} WHERE connection_id = 'c1'`);
    assert.deepEqual(open.rows, [{ request_key: "c:n:1", kind: "client" }]);
    // Answered in a later batch: deleted then.
    await writer.add({ ...base, kind: "answered", key: "c:n:1" });
    assert.equal((await pool!.query(`SELECT 1 FROM ${PROMPTS} WHERE connection_id = 'c1'`)).rows.length, 0);
    await writer.close();
  },
);

test(
  "a write under a lease token the row no longer has is excluded and reported as fenced",
  { skip: unavailable },
  async () => {
    const fenced: string[][] = [];
    const writer = new EventWriter({ pool: pool!, nodeId: "node-a", onFenced: (ids) => fenced.push([...ids]) });
    await writer.add({ connectionId: "c1", token: 2, kind: "event", stream: "", id: 99, body: "{}" });
    await writer.add({ connectionId: "c1", token: 3, kind: "event", stream: "", id: 100, body: "{}" });
    const other = new EventWriter({ pool: pool!, nodeId: "node-b", onFenced: (ids) => fenced.push([...ids]) });
    await other.add({ connectionId: "c1", token: 3, kind: "event", stream: "", id: 101, body: "{}" });
    assert.deepEqual(fenced, [["c1"], ["c1"]], "an old token, then another node's name");
    const ids = await pool!.query(`SELECT event_id::int FROM ${EVENTS} WHERE connection_id = 'c1' AND stream = ''`);
    assert.deepEqual(ids.rows, [{ event_id: 100 }]);
    await writer.close();
    await other.close();
  },
);
