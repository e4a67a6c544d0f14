import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { LocalError } from "../../jsonrpc/local-errors.js";
import { silentLogger } from "../../jsonrpc/logger.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { PostgresUnavailableError } from "./errors.js";
import { createPostgresPool } from "./pool.js";
import { backoffDelay, withPostgresRetry } from "./retry.js";

const context = { operation: "probe", database: "postgres://u@h:1/d" };
const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });

test("backoff doubles from the initial delay up to the cap, with jitter in [0.5, 1.5)", () => {
  for (let i = 0; i < 200; i++) {
    const first = backoffDelay(1, { initialDelayMs: 100, maxDelayMs: 1_000 });
    assert.ok(first >= 50 && first <= 150, String(first));
    const fourth = backoffDelay(4, { initialDelayMs: 100, maxDelayMs: 1_000 });
    assert.ok(fourth >= 400 && fourth <= 1_000, String(fourth));
    assert.ok(backoffDelay(40, { initialDelayMs: 100, maxDelayMs: 1_000 }) <= 1_000);
  }
});

test("transient failures are retried until success; each retry is reported", async () => {
  const seen: number[] = [];
  const result = await withPostgresRetry(
    async (attempt) => {
      if (attempt < 3) throw refused();
      return `ok on ${attempt}`;
    },
    context,
    { initialDelayMs: 1, onRetry: (_error, attempt) => seen.push(attempt) },
  );
  assert.equal(result, "ok on 3");
  assert.deepEqual(seen, [1, 2]);
});

test("a permanent failure is thrown at once, as it is", async () => {
  let calls = 0;
  const syntax = Object.assign(new Error('syntax error at or near "SELEC"'), { code: "42601", severity: "ERROR" });
  await assert.rejects(
    withPostgresRetry(
      async () => {
        calls++;
        throw syntax;
      },
      context,
      { initialDelayMs: 1 },
    ),
    (error: unknown) => error === syntax,
  );
  assert.equal(calls, 1);
});

test("the bound: attempts, then a local error naming the operation, the database and the last error", async () => {
  let calls = 0;
  const error = await withPostgresRetry(
    async () => {
      calls++;
      throw refused();
    },
    context,
    { attempts: 4, initialDelayMs: 1, maxDelayMs: 2 },
  ).then(
    () => assert.fail("succeeded"),
    (caught: unknown) => caught,
  );
  assert.equal(calls, 4);
  assert.ok(error instanceof PostgresUnavailableError);
  assert.ok(error instanceof LocalError);
  assert.equal(error.kind, "database_unavailable");
  assert.equal(error.attempts, 4);
  assert.match(error.message, /^acpkit: probe failed: PostgreSQL at postgres:\/\/u@h:1\/d kept failing/);
  assert.match(error.message, /4 attempts over .* s; last: connect ECONNREFUSED 127\.0\.0\.1:1/);
  assert.match(error.message, /raise the retry bound/);
  assert.equal((error.cause as { code?: string }).code, "ECONNREFUSED");
});

test("the bound: the deadline stops retrying before the attempts run out", async () => {
  let calls = 0;
  const started = performance.now();
  await assert.rejects(
    withPostgresRetry(
      async () => {
        calls++;
        throw refused();
      },
      context,
      { attempts: 1_000, deadlineMs: 300, initialDelayMs: 20, maxDelayMs: 40 },
    ),
    PostgresUnavailableError,
  );
  assert.ok(performance.now() - started < 1_000);
  assert.ok(calls > 2 && calls < 40, String(calls));
});

test("an abort stops the waiting", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("shutting down")), 50).unref();
  await assert.rejects(
    withPostgresRetry(
      async () => {
        throw refused();
      },
      context,
      { initialDelayMs: 10_000, maxDelayMs: 10_000, signal: controller.signal },
    ),
    /shutting down/,
  );
});

const unavailable = postgresUnavailable();
let server: TestPostgres;

before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});

after(async () => {
  await server?.close();
});

test("a query retried across a real restart succeeds once the server is back", { skip: unavailable }, async () => {
  const pool = await createPostgresPool({ connectionString: server.connectionString, logger: silentLogger });
  try {
    await server.stop("fast");
    const restart = sleep(1_500).then(() => server.start());
    let attempts = 0;
    const { rows } = await pool.retry(
      "select",
      (attempt) => {
        attempts = attempt;
        return pool.query<{ n: number }>("SELECT 41 + 1 AS n");
      },
      { initialDelayMs: 50, maxDelayMs: 300, deadlineMs: 60_000, attempts: 1_000 },
    );
    await restart;
    assert.equal(rows[0]!.n, 42);
    assert.ok(attempts > 1, "the first attempts failed while the server was down");
  } finally {
    await pool.end();
  }
});

test("a server that stays down: a clear error once the bound is reached", { skip: unavailable }, async () => {
  const pool = await createPostgresPool({
    connectionString: server.connectionString,
    logger: silentLogger,
    retry: { attempts: 5, initialDelayMs: 10, maxDelayMs: 50 },
  });
  await server.stop("fast");
  try {
    const error = await pool
      .retry("load sessions", () => pool.query("SELECT 1"))
      .then(
        () => assert.fail("succeeded with the server down"),
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof PostgresUnavailableError);
    assert.equal(error.attempts, 5);
    assert.match(
      error.message,
      new RegExp(`load sessions failed: PostgreSQL at postgres://postgres@127\\.0\\.0\\.1:${server.port}/postgres`),
    );
    assert.match(error.message, /ECONNREFUSED/);
    assert.ok(!error.message.includes(server.password));
  } finally {
    await server.start();
    await pool.end();
  }
});
