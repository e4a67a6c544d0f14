import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Logger } from "../../jsonrpc/logger.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { listenPostgres } from "./listener.js";
import { createPostgresPool } from "./pool.js";
import { describeDatabase, passwordOf, Redactor } from "./redact.js";

test("the password is found in URL and key=value connection strings", () => {
  assert.equal(passwordOf("postgres://u:s3cret@db:5432/app"), "s3cret");
  assert.equal(passwordOf("postgresql://u:p%40ss%2Fw@db/app"), "p@ss/w");
  assert.equal(passwordOf("postgres://u:pw@/app?host=/var/run/postgresql"), "pw");
  assert.equal(passwordOf("postgres://u@db/app?password=inquery"), "inquery");
  assert.equal(passwordOf("host=db user=u password='a b\\'c' dbname=app"), "a b'c");
  assert.equal(passwordOf("host=db user=u password=plain dbname=app"), "plain");
  assert.equal(passwordOf("host=db user=u dbname=app"), undefined);
  assert.equal(passwordOf("postgres://u@db/app"), undefined);
});

test("the description of a database never has the password", () => {
  assert.equal(describeDatabase({ connectionString: "postgres://u:s3cret@db:6543/app" }), "postgres://u@db:6543/app");
  assert.equal(
    describeDatabase({ connectionString: "postgres://u:pw@/app?host=/run/pg&port=5433" }),
    "postgres://u@[/run/pg]:5433/app",
  );
  assert.equal(
    describeDatabase({ connectionString: "host=db port=7 user=u password=zz dbname=d" }),
    "postgres://u@db:7/d",
  );
  assert.equal(
    describeDatabase({ host: "h", user: "u", password: "never", database: "d" } as never),
    "postgres://u@h:5432/d",
  );
});

test("text: secrets, their URL encoding, any URL userinfo password and password=... are masked", () => {
  const redactor = new Redactor(["s3cr@t", undefined, ""]);
  assert.equal(redactor.text("failed: s3cr@t!"), "failed: ***!");
  assert.equal(redactor.text("at postgres://u:s3cr%40t@h/d"), "at postgres://u:***@h/d");
  assert.equal(redactor.text("other postgres://x:unknown@h/d"), "other postgres://x:***@h/d");
  assert.equal(redactor.text("host=h password=whatever user=u"), "host=h password=*** user=u");
  assert.equal(redactor.text("nothing here"), "nothing here");
});

test("errors are redacted in place: message, stack, string fields, cause and inner errors", () => {
  const redactor = new Redactor(["hunter2"]);
  const inner = Object.assign(new Error("inner hunter2"), { code: "ECONNREFUSED", input: "postgres://u:hunter2@h" });
  const outer = new AggregateError([inner], "outer hunter2", { cause: new Error("cause hunter2") });
  const circular = outer as AggregateError & { self?: unknown };
  circular.self = outer;
  const same = redactor.error(outer);
  assert.equal(same, outer);
  assert.equal(outer.message, "outer ***");
  assert.ok(!String(outer.stack).includes("hunter2"));
  assert.equal(inner.message, "inner ***");
  assert.equal(inner.code, "ECONNREFUSED");
  assert.equal(inner.input, "postgres://u:***@h");
  assert.equal((outer.cause as Error).message, "cause ***");
  assert.equal(redactor.error("a string hunter2"), "a string ***");
  assert.equal(redactor.error(42), 42);
});

const unavailable = postgresUnavailable();
let server: TestPostgres;

before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});

after(async () => {
  await server?.close();
});

function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const record = (message: string, fields?: Record<string, unknown>) =>
    void lines.push(fields === undefined ? message : `${message} ${JSON.stringify(fields)}`);
  return { lines, debug: record, info: record, warn: record, error: record };
}

test("a real server's error quoting the password comes out masked", { skip: unavailable }, async () => {
  const logger = recordingLogger();
  const pool = await createPostgresPool({ connectionString: server.connectionString, logger });
  try {
    assert.ok(!pool.database.includes(server.password));
    // The server quotes the value it could not parse: a password that ended up in a query's parameters.
    const error = await pool.query("SELECT $1::int", [`x${server.password}`]).then(
      () => assert.fail("the cast should fail"),
      (caught: unknown) => caught as Error & { code?: string },
    );
    assert.equal(error.code, "22P02");
    assert.match(error.message, /invalid input syntax for type integer: "x\*\*\*"/);
    assert.ok(!JSON.stringify(error).includes(server.password));
    assert.ok(!String(error.stack).includes(server.password));
    // The same through a transaction and through a retried operation.
    const inTransaction = await pool
      .transaction((client) => client.query("SELECT $1::int", [server.password]))
      .then(
        () => assert.fail("the cast should fail"),
        (caught: unknown) => caught as Error,
      );
    assert.ok(!inTransaction.message.includes(server.password), inTransaction.message);
  } finally {
    await pool.end();
  }
});

test("log lines about a restart name the database, never its password", { skip: unavailable }, async () => {
  const logger = recordingLogger();
  const password = server.password;
  const pool = await createPostgresPool({
    host: server.host,
    port: server.port,
    user: server.user,
    password,
    database: server.database,
    logger,
  });
  const listener = await listenPostgres(pool, { channels: ["c"], onNotification: () => undefined });
  try {
    await pool.query("SELECT 1");
    await server.restart("fast");
    await pool.retry("select after restart", () => pool.query("SELECT 1"));
    assert.ok(
      logger.lines.some((line) => line.includes(`postgres://postgres@127.0.0.1:${server.port}/postgres`)),
      logger.lines.join("\n"),
    );
    for (const line of logger.lines) assert.ok(!line.includes(password), line);
  } finally {
    await listener.close();
    await pool.end();
  }
  // A wrong password: the error does not repeat it.
  const wrong = await createPostgresPool({
    connectionString: `postgres://postgres:Wr0ng-${password}@127.0.0.1:${server.port}/postgres`,
  });
  try {
    const error = await wrong.query("SELECT 1").then(
      () => assert.fail("a wrong password was accepted"),
      (caught: unknown) => caught as Error & { code?: string },
    );
    assert.equal(error.code, "28P01");
    assert.ok(!JSON.stringify({ ...error, message: error.message, stack: error.stack }).includes(password));
  } finally {
    await wrong.end();
  }
});
