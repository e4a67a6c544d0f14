/**
 * The `SessionStore` contract (`agent/toolkit/testing/store-contract.ts`) run against the PostgreSQL store, on a
 * real PostgreSQL 15 started for this file (a database per store opened). Its own guarantees (the lease, fencing,
 * restarts, kill -9) are tested in `postgres-session-lease.test.ts` and `postgres-session-faults.test.ts`; the write
 * statement's idempotence and delete's completeness here.
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../jsonrpc/logger.js";
import type { SessionRecord, SessionStore } from "../../agent/toolkit/session-store.js";
import { sessionStoreContract } from "../../agent/toolkit/testing/store-contract.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { createPostgresPool } from "../postgres/pool.js";
import { PostgresSessionStore } from "./postgres-session-store.js";
import { leaseKey, writeAppends } from "./postgres-session-writer.js";

const unavailable = postgresUnavailable();
let server: TestPostgres | undefined;
before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});
after(async () => {
  await server?.close();
});

const databases = new WeakMap<SessionStore, string>();
let count = 0;

async function openOn(connectionString: string): Promise<PostgresSessionStore> {
  const store = await PostgresSessionStore.open({ connection: { connectionString, logger: silentLogger } });
  databases.set(store, connectionString);
  return store;
}

sessionStoreContract({
  name: "PostgresSessionStore",
  skip: unavailable,
  open: async () => {
    const name = `contract_${++count}`;
    await server!.createDatabase(name);
    return openOn(server!.connectionStringFor(name));
  },
  reopen: async (store) => {
    await store.close?.();
    return openOn(databases.get(store)!);
  },
});

const url = async (name: string) => {
  await server!.createDatabase(name);
  return server!.connectionStringFor(name);
};
const now = () => new Date().toISOString();
const data = (i: number): SessionRecord => ({ kind: "data", data: { i } });

test(
  "the append statement is idempotent (run again after a commit whose answer was lost, it writes nothing twice) and fenced (a stale token writes nothing)",
  { skip: unavailable },
  async () => {
    const connectionString = await url("writer_idempotent");
    const store = await openOn(connectionString);
    await store.create({ sessionId: "w1", cwd: "/work", createdAt: now(), updatedAt: now() });
    await store.append("w1", [data(0), data(1)]);
    const pool = await createPostgresPool({ connectionString, logger: silentLogger });
    try {
      const { rows } = await pool.query<{ token: string }>(
        "SELECT lease_token::text AS token FROM acpkit_sessions WHERE session_id = 'w1'",
      );
      const token = rows[0]!.token;
      const item = { sessionId: "w1", token, firstSeq: 3, texts: [JSON.stringify(data(2)), JSON.stringify(data(3))] };
      for (let run = 0; run < 2; run++)
        assert.deepEqual([...(await writeAppends(pool, store.holder.id, [item], 10_000))], [leaseKey("w1", token)]);
      const stale = { ...item, token: String(Number(token) - 1), firstSeq: 5, texts: [JSON.stringify(data(99))] };
      assert.deepEqual([...(await writeAppends(pool, store.holder.id, [stale], 10_000))], []);
      const other = { ...item, firstSeq: 5, texts: [JSON.stringify(data(99))] };
      assert.deepEqual([...(await writeAppends(pool, "someone else", [other], 10_000))], []);
      const stored = await pool.query<{ seq: string }>(
        "SELECT seq::text AS seq FROM acpkit_session_records WHERE session_id = 'w1' ORDER BY seq",
      );
      assert.deepEqual(
        stored.rows.map((row) => row.seq),
        ["1", "2", "3", "4"],
      );
      // The store numbers on from what is there.
      await store.releaseSession("w1");
      await store.append("w1", [data(4)]);
      assert.deepEqual(
        (await store.history("w1")).map((record) => (record as { data: { i: number } }).data.i),
        [0, 1, 2, 3, 4],
      );
    } finally {
      await pool.end();
      await store.close();
    }
  },
);

test(
  "delete takes the session's records with it, even with appends racing it; a session made again under the id starts empty",
  { skip: unavailable },
  async () => {
    const connectionString = await url("delete_race");
    const store = await openOn(connectionString);
    for (let round = 0; round < 5; round++) {
      await store.create({ sessionId: "d1", cwd: "/work", createdAt: now(), updatedAt: now() });
      const appends = Array.from({ length: 200 }, (_, i) =>
        store.append("d1", [data(i)]).catch((error: Error) => error),
      );
      await store.delete("d1");
      const outcomes = await Promise.all(appends);
      // Appends queued before the delete were written (then deleted); none after it.
      assert.ok(outcomes.every((outcome) => outcome === undefined));
      assert.equal(await server!.psql("SELECT count(*) FROM acpkit_session_records", "delete_race"), "0\n");
      await assert.rejects(store.append("d1", [data(0)]), /does not exist/);
    }
    await store.close();
  },
);

test(
  "rows that are not readable records (edited by hand, or a newer version's kind) are kept, skipped and reported; the rest loads in order",
  { skip: unavailable },
  async () => {
    const connectionString = await url("unreadable_rows");
    const lines: Array<[string, string, unknown]> = [];
    const logger = {
      debug() {},
      info() {},
      warn: (message: string, fields?: unknown) => void lines.push(["warn", message, fields]),
      error: (message: string, fields?: unknown) => void lines.push(["error", message, fields]),
    };
    const store = await PostgresSessionStore.open({ connection: { connectionString, logger: silentLogger }, logger });
    await store.create({ sessionId: "u1", cwd: "/work", createdAt: now(), updatedAt: now() });
    await store.append("u1", [data(0), data(1), data(2)]);
    await server!.psql(
      `UPDATE acpkit_session_records SET record = 'not json {' WHERE session_id = 'u1' AND seq = 2;
       INSERT INTO acpkit_session_records VALUES ('u1', 4, '{"kind":"hologram","x":1}');
       UPDATE acpkit_sessions SET last_seq = 4 WHERE session_id = 'u1'`,
      "unreadable_rows",
    );
    await store.releaseSession("u1");
    await store.append("u1", [data(5)]);
    assert.deepEqual(
      (await store.history("u1")).map((record) => (record as { data: { i: number } }).data.i),
      [0, 2, 5],
    );
    assert.deepEqual(
      lines.map(([level, , fields]) => [level, (fields as { seq: string[] }).seq]),
      [
        ["warn", ["4"]],
        ["error", ["2"]],
      ],
    );
    assert.match(lines[1]![1], /not JSON .*kept them, skipped them/);
    assert.equal(await server!.psql("SELECT count(*) FROM acpkit_session_records", "unreadable_rows"), "5\n");
    await store.close();
  },
);
