import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "../../jsonrpc/logger.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { PostgresCommitUnknownError } from "./errors.js";
import { createPostgresPool, type PostgresPool } from "./pool.js";

const unavailable = postgresUnavailable();
let server: TestPostgres;
let pool: PostgresPool;

before(async () => {
  if (unavailable !== undefined) return;
  server = await startTestPostgres();
  pool = await createPostgresPool({
    connectionString: server.connectionString,
    applicationName: "acpkit-pool-test",
    statementTimeoutMs: 400,
    logger: silentLogger,
    retry: { initialDelayMs: 10, maxDelayMs: 200, deadlineMs: 30_000, attempts: 200 },
  });
  await pool.query("CREATE TABLE counter (k int PRIMARY KEY, v int NOT NULL)");
  await pool.query("CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)");
  await pool.query("INSERT INTO counter VALUES (1, 0)");
});

after(async () => {
  await pool?.end();
  await server?.close();
});

test("sessions carry the application_name and the statement timeout", { skip: unavailable }, async () => {
  const { rows } = await pool.query<{ name: string; timeout: string; keepalive: string }>(
    "SELECT current_setting('application_name') AS name, current_setting('statement_timeout') AS timeout",
  );
  assert.deepEqual(rows[0], { name: "acpkit-pool-test", timeout: "400ms" });
  const seen = await pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'acpkit-pool-test'",
  );
  assert.ok(Number(seen.rows[0]!.n) >= 1);
  await assert.rejects(pool.query("SELECT pg_sleep(2)"), (error: { code?: string }) => error.code === "57014");
  // A dedicated client has the same settings.
  const client = pool.createClient();
  await client.connect();
  try {
    const mine = await client.query<{ name: string }>("SELECT current_setting('application_name') AS name");
    assert.equal(mine.rows[0]!.name, "acpkit-pool-test");
  } finally {
    await client.end();
  }
});

test("a transaction commits what it did, or nothing when it throws", { skip: unavailable }, async () => {
  const result = await pool.transaction(async (client) => {
    await client.query("INSERT INTO items VALUES (1, 'one')");
    await client.query("INSERT INTO items VALUES (2, 'two')");
    return "done";
  });
  assert.equal(result, "done");
  await assert.rejects(
    pool.transaction(async (client) => {
      await client.query("INSERT INTO items VALUES (3, 'three')");
      await client.query("INSERT INTO items VALUES (1, 'duplicate')");
    }),
    (error: { code?: string }) => error.code === "23505",
  );
  const { rows } = await pool.query<{ id: number }>("SELECT id FROM items ORDER BY id");
  assert.deepEqual(
    rows.map((row) => row.id),
    [1, 2],
  );
  await assert.rejects(
    pool.transaction(async () => undefined, { isolation: "chaotic" as never }),
    /isolation must be "read committed", "repeatable read" or "serializable"/,
  );
});

test("conflicting serializable transactions are retried until each applies once", { skip: unavailable }, async () => {
  await pool.query("UPDATE counter SET v = 0 WHERE k = 1");
  const writers = 4;
  let attempts = 0;
  let reads = 0;
  let release!: () => void;
  const allRead = new Promise<void>((resolve) => (release = resolve));
  await Promise.all(
    Array.from({ length: writers }, () =>
      pool.transaction(
        async (client) => {
          attempts++;
          await client.query("SELECT v FROM counter WHERE k = 1");
          // The first round: everyone has read before anyone writes, so all but one must fail and retry.
          if (++reads === writers) release();
          await allRead;
          await client.query("UPDATE counter SET v = v + 1 WHERE k = 1");
        },
        { isolation: "serializable", operation: "increment" },
      ),
    ),
  );
  const { rows } = await pool.query<{ v: number }>("SELECT v FROM counter WHERE k = 1");
  assert.equal(rows[0]!.v, writers);
  assert.ok(attempts > writers, `serialization failures were retried (${attempts} attempts)`);
});

test(
  "a connection lost during COMMIT: outcome unknown, not retried unless idempotent",
  { skip: unavailable },
  async () => {
    let attempts = 0;
    const killOwnSession = async (client: { query: PostgresPool["query"] }) => {
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await pool.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      await sleep(100);
    };
    const error = await pool
      .transaction(async (client) => {
        attempts++;
        await client.query("INSERT INTO items VALUES (10, 'ten')");
        await killOwnSession(client);
      })
      .then(
        () => assert.fail("committed on a terminated connection"),
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof PostgresCommitUnknownError, String(error));
    assert.equal(error.kind, "database_unavailable");
    assert.match(error.message, /lost during COMMIT: the transaction may or may not have been applied/);
    assert.equal(attempts, 1);

    attempts = 0;
    await pool.transaction(
      async (client) => {
        attempts++;
        await client.query("INSERT INTO items VALUES (11, 'eleven') ON CONFLICT DO NOTHING");
        if (attempts === 1) await killOwnSession(client);
      },
      { idempotent: true },
    );
    assert.equal(attempts, 2);
    const { rows } = await pool.query("SELECT 1 FROM items WHERE id = 11");
    assert.equal(rows.length, 1);
  },
);

test(
  "the pool rides out a restart: idle connections dropped, no crash, next queries work",
  { skip: unavailable },
  async () => {
    // Fill the pool with idle connections, then restart under them.
    const held = await Promise.all(Array.from({ length: 3 }, () => pool.withClient(async (c) => c.query("SELECT 1"))));
    assert.equal(held.length, 3);
    // A client held across the restart, between two queries.
    const survivor = pool.withClient(async (client) => {
      await client.query("SELECT 1");
      await sleep(1_500);
      return client.query("SELECT 1").then(
        () => "worked",
        (error: unknown) => error,
      );
    });
    await sleep(200);
    await server.restart("fast");
    const outcome = await survivor;
    assert.notEqual(outcome, "worked", "a connection cut by the restart cannot answer");
    const { rows } = await pool.retry("after restart", () => pool.query<{ n: number }>("SELECT 7 AS n"));
    assert.equal(rows[0]!.n, 7);
    const stats = pool.stats();
    assert.ok(stats.total <= 10 && stats.waiting === 0, JSON.stringify(stats));
  },
);
