/**
 * The write batcher against a real PostgreSQL.
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../jsonrpc/logger.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { createPostgresPool, type PostgresPool } from "./pool.js";
import { multiRowInsert, WriteBatcher } from "./write-batcher.js";

test("multiRowInsert: one statement, numbered parameters, quoted identifiers, a suffix", () => {
  const statement = multiRowInsert(
    "app.events",
    ["stream", "seq", 'we"ird'],
    [
      ["a", 1, null],
      ["b", 2, "x"],
    ],
    "ON CONFLICT DO NOTHING RETURNING seq",
  );
  assert.equal(
    statement.text,
    'INSERT INTO "app"."events" ("stream", "seq", "we""ird") VALUES ($1, $2, $3), ($4, $5, $6) ON CONFLICT DO NOTHING RETURNING seq',
  );
  assert.deepEqual(statement.values, ["a", 1, null, "b", 2, "x"]);
  assert.throws(() => multiRowInsert("t", ["a"], []), /at least one row/);
  assert.throws(() => multiRowInsert("t", ["a", "b"], [[1]]), /a row has 1 values for 2 columns/);
  assert.throws(
    () =>
      multiRowInsert(
        "t",
        ["a", "b"],
        Array.from({ length: 40_000 }, () => [1, 2]),
      ),
    /over PostgreSQL's 65,535 parameters/,
  );
});

test("adds in one tick become one write, in order; each caller gets its own result", async () => {
  const writes: number[][] = [];
  const batcher = new WriteBatcher<number, string>({
    write: async (items) => {
      writes.push([...items]);
      return items.map((item) => `r${item}`);
    },
  });
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.add(i)));
  assert.deepEqual(results, ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9"]);
  assert.deepEqual(writes, [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]);
  assert.equal(batcher.batches, 1);
});

test("maxBatch splits; adds during a write wait for it and go together next; batches never overlap", async () => {
  const writes: number[][] = [];
  let inFlight = 0;
  let release!: () => void;
  let gate = new Promise<void>((resolve) => (release = resolve));
  const batcher = new WriteBatcher<number>({
    maxBatch: 3,
    write: async (items) => {
      inFlight++;
      assert.equal(inFlight, 1, "one batch at a time");
      writes.push([...items]);
      await gate;
      inFlight--;
    },
  });
  const first = [1, 2, 3, 4].map((n) => batcher.add(n));
  await new Promise((resolve) => setImmediate(resolve));
  // The first batch (1, 2, 3) is being written; these queue behind it.
  const second = [5, 6].map((n) => batcher.add(n));
  assert.equal(batcher.pending, 3);
  release();
  gate = Promise.resolve();
  await Promise.all([...first, ...second]);
  assert.deepEqual(writes, [
    [1, 2, 3],
    [4, 5, 6],
  ]);
});

test("a failed write rejects exactly its batch; the next batch is written; close refuses more", async () => {
  let calls = 0;
  const batcher = new WriteBatcher<string>({
    maxBatch: 2,
    write: async () => {
      if (++calls === 1) throw new Error("disk full");
    },
  });
  const outcomes = await Promise.allSettled(["a", "b", "c"].map((item) => batcher.add(item)));
  assert.deepEqual(
    outcomes.map((outcome) => outcome.status),
    ["rejected", "rejected", "fulfilled"],
  );
  assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /disk full/);
  const wrong = new WriteBatcher<number, number>({ write: async () => [1] });
  await assert.rejects(
    Promise.all([wrong.add(1), wrong.add(2)]),
    /returned 1 results for 2 items; return one per item, in order, or none/,
  );
  const pending = batcher.add("d");
  await batcher.close();
  await pending;
  await assert.rejects(batcher.add("e"), /the write batcher is closed/);
});

test("delayMs collects over a longer window; flush writes without waiting for it", async () => {
  const writes: number[][] = [];
  const batcher = new WriteBatcher<number>({ delayMs: 10_000, write: async (items) => void writes.push([...items]) });
  const added = [batcher.add(1), batcher.add(2)];
  await batcher.flush();
  await Promise.all(added);
  assert.deepEqual(writes, [[1, 2]]);
});

const unavailable = postgresUnavailable();
let server: TestPostgres;
let pool: PostgresPool;

before(async () => {
  if (unavailable !== undefined) return;
  server = await startTestPostgres();
  pool = await createPostgresPool({ connectionString: server.connectionString, logger: silentLogger });
  await pool.query("CREATE TABLE events (stream text NOT NULL, seq bigserial PRIMARY KEY, body text NOT NULL)");
});

after(async () => {
  await pool?.end();
  await server?.close();
});

test(
  "2,000 concurrent inserts: a few statements; every resolved row is committed, and survives a crash",
  {
    skip: unavailable,
  },
  async () => {
    let statements = 0;
    const batcher = new WriteBatcher<{ stream: string; body: string }, string>({
      maxBatch: 500,
      write: async (rows) => {
        statements++;
        const { text, values } = multiRowInsert(
          "events",
          ["stream", "body"],
          rows.map((row) => [row.stream, row.body]),
          "RETURNING seq",
        );
        const result = await pool.query<{ seq: string }>(text, values);
        return result.rows.map((row) => row.seq);
      },
    });
    // An observer on its own connection checks each row the moment its promise resolves.
    const observer = pool.createClient();
    await observer.connect();
    const checks: Promise<void>[] = [];
    try {
      const sequences = await Promise.all(
        Array.from({ length: 2_000 }, (_, i) =>
          batcher.add({ stream: `s${i % 7}`, body: `event ${i}` }).then((seq) => {
            checks.push(
              observer.query<{ body: string }>("SELECT body FROM events WHERE seq = $1", [seq]).then(({ rows }) => {
                assert.equal(rows[0]?.body, `event ${i}`, `row ${i} visible to another session once resolved`);
              }),
            );
            return Number(seq);
          }),
        ),
      );
      await Promise.all(checks);
      assert.ok(statements >= 4 && statements <= 8, `${statements} statements for 2,000 rows`);
      // Rows in add order: the sequence numbers increase with i.
      for (let i = 1; i < sequences.length; i++) assert.ok(sequences[i]! > sequences[i - 1]!);
    } finally {
      await observer.end();
    }
    // A crash (immediate stop: no shutdown checkpoint) and a restart: everything acknowledged is still there.
    await server.stop("immediate");
    await server.start();
    const { rows } = await pool.retry("count", () => pool.query<{ n: string }>("SELECT count(*) AS n FROM events"));
    assert.equal(Number(rows[0]!.n), 2_000);
  },
);
