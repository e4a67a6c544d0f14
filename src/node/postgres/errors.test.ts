import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../testing/services.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { isTransientPostgresError, PostgresCommitUnknownError, sqlState } from "./errors.js";
import { loadPg } from "./pool.js";
import type { PgClient, PgModule } from "./pg-types.js";

// Classification on the errors a real server and a real driver produce, not on hand-made objects.
const unavailable = postgresUnavailable();
let server: TestPostgres;
let pg: PgModule;

before(async () => {
  if (unavailable !== undefined) return;
  pg = await loadPg();
  server = await startTestPostgres({ settings: { max_connections: "12", superuser_reserved_connections: "3" } });
  await server.psql("CREATE ROLE app LOGIN PASSWORD 'app-password'; CREATE TABLE t (k int PRIMARY KEY, v int)");
  await server.psql("GRANT ALL ON t TO app; INSERT INTO t VALUES (1, 0), (2, 0)");
});

after(async () => {
  await server?.close();
});

async function connect(connectionString = server.connectionString): Promise<PgClient> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  return work().then(
    () => assert.fail("expected a failure"),
    (error: unknown) => error,
  );
}

test("connection refused (nothing listening) is transient", { skip: unavailable }, async () => {
  const port = await freePort();
  const error = await failure(() => connect(`postgres://postgres:x@127.0.0.1:${port}/postgres`));
  assert.equal((error as { code?: string }).code, "ECONNREFUSED");
  assert.equal(isTransientPostgresError(error), true);
});

test("a unix socket that is not there (server down) is transient", { skip: unavailable }, async () => {
  const error = await failure(() => connect(`postgres://postgres@/postgres?host=/tmp/acpkit-no-such-dir&port=5999`));
  assert.equal((error as { code?: string }).code, "ENOENT");
  assert.equal(isTransientPostgresError(error), true);
});

test(
  "admin shutdown (57P01: the session terminated, as in a restart) is transient",
  { skip: unavailable },
  async () => {
    const victim = await connect();
    const killer = await connect();
    try {
      const { rows } = await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const sleeping = failure(() => victim.query("SELECT pg_sleep(30)"));
      await sleep(200);
      await killer.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      const error = await sleeping;
      assert.equal(sqlState(error), "57P01");
      assert.equal(isTransientPostgresError(error), true);
      // The dead client's next query fails with pg's own message: transient too.
      const next = await failure(() => victim.query("SELECT 1"));
      assert.equal(isTransientPostgresError(next), true, String(next));
    } finally {
      await killer.end();
      await victim.end().catch(() => undefined);
    }
  },
);

test("a serialization failure (40001) is transient", { skip: unavailable }, async () => {
  const a = await connect();
  const b = await connect();
  try {
    await a.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await b.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await a.query("SELECT v FROM t WHERE k = 1");
    await b.query("SELECT v FROM t WHERE k = 1");
    await a.query("UPDATE t SET v = v + 1 WHERE k = 1");
    const blocked = failure(() => b.query("UPDATE t SET v = v + 1 WHERE k = 1"));
    await a.query("COMMIT");
    const error = await blocked;
    assert.equal(sqlState(error), "40001");
    assert.equal(isTransientPostgresError(error), true);
  } finally {
    await b.query("ROLLBACK").catch(() => undefined);
    await a.end();
    await b.end();
  }
});

test("a deadlock (40P01) is transient", { skip: unavailable }, async () => {
  const a = await connect();
  const b = await connect();
  try {
    await a.query("BEGIN");
    await b.query("BEGIN");
    await a.query("UPDATE t SET v = v + 1 WHERE k = 1");
    await b.query("UPDATE t SET v = v + 1 WHERE k = 2");
    const first = a.query("UPDATE t SET v = v + 1 WHERE k = 2").then(
      () => undefined,
      (error: unknown) => error,
    );
    const second = b.query("UPDATE t SET v = v + 1 WHERE k = 1").then(
      () => undefined,
      (error: unknown) => error,
    );
    const errors = (await Promise.all([first, second])).filter((error) => error !== undefined);
    assert.equal(errors.length, 1, "the deadlock detector aborts exactly one of the two");
    assert.equal(sqlState(errors[0]), "40P01");
    assert.equal(isTransientPostgresError(errors[0]), true);
  } finally {
    await a.query("ROLLBACK").catch(() => undefined);
    await b.query("ROLLBACK").catch(() => undefined);
    await a.end();
    await b.end();
  }
});

test("too many connections (53300) is transient", { skip: unavailable }, async () => {
  const clients: PgClient[] = [];
  const app = `postgres://app:app-password@127.0.0.1:${server.port}/postgres`;
  try {
    let error: unknown;
    for (let i = 0; i < 20 && error === undefined; i++) {
      try {
        clients.push(await connect(app));
      } catch (caught) {
        error = caught;
      }
    }
    assert.ok(error !== undefined, "the server refused a connection");
    assert.equal(sqlState(error), "53300");
    assert.equal(isTransientPostgresError(error), true);
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
});

test(
  "SQL errors, constraint violations, a wrong password and a statement timeout are permanent",
  {
    skip: unavailable,
  },
  async () => {
    const client = await connect();
    try {
      const syntax = await failure(() => client.query("SELEC 1"));
      assert.equal(sqlState(syntax), "42601");
      const duplicate = await failure(() => client.query("INSERT INTO t VALUES (1, 0)"));
      assert.equal(sqlState(duplicate), "23505");
      await client.query("SET statement_timeout = 50");
      const slow = await failure(() => client.query("SELECT pg_sleep(5)"));
      assert.equal(sqlState(slow), "57014");
      const password = await failure(() => connect(`postgres://app:wrong-password@127.0.0.1:${server.port}/postgres`));
      assert.equal(sqlState(password), "28P01");
      for (const error of [syntax, duplicate, slow, password])
        assert.equal(isTransientPostgresError(error), false, String(error));
    } finally {
      await client.end();
    }
  },
);

test("the server stopping under a running query: the query's error is transient", { skip: unavailable }, async () => {
  const client = await connect();
  const running = failure(() => client.query("SELECT pg_sleep(30)"));
  await sleep(200);
  await server.stop("fast");
  try {
    const error = await running;
    assert.equal(isTransientPostgresError(error), true, String(error));
    const refused = await failure(() => connect());
    assert.equal(isTransientPostgresError(refused), true, String(refused));
  } finally {
    await server.start();
    await client.end().catch(() => undefined);
  }
});

test("AggregateError (every address refused) is transient only when every inner error is", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED ::1:5432"), { code: "ECONNREFUSED" });
  const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  const tls = Object.assign(new Error("self-signed certificate"), { code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
  assert.equal(isTransientPostgresError(new AggregateError([refused, reset])), true);
  assert.equal(isTransientPostgresError(new AggregateError([refused, tls])), false);
  assert.equal(isTransientPostgresError(new AggregateError([])), false);
});

test("a COMMIT of unknown outcome is never transient; nor is a non-error", () => {
  const lost = Object.assign(new Error("Connection terminated unexpectedly"), {});
  assert.equal(isTransientPostgresError(lost), true);
  assert.equal(isTransientPostgresError(new PostgresCommitUnknownError("postgres://x@h:1/d", lost)), false);
  assert.equal(isTransientPostgresError(undefined), false);
  assert.equal(isTransientPostgresError("ECONNREFUSED"), false);
});
