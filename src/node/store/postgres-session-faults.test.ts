/**
 * The PostgreSQL store through failures, on a real PostgreSQL: the server restarting (or crashing) while appends are
 * in flight, an outage longer than the retry bound, and a writer process killed with SIGKILL mid-append. What each
 * checks: every acknowledged record is there, in order; an append that did not land failed with an error that says
 * what to do and never shows the password; the store carries on afterwards.
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type { SessionRecord } from "../../agent/toolkit/session-store.js";
import { PostgresUnavailableError } from "../postgres/errors.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { PostgresSessionStore, type PostgresSessionStoreOptions } from "./postgres-session-store.js";
import { startWriter, type WriterProcess } from "./testing/writer-process.js";

const unavailable = postgresUnavailable();
let server: TestPostgres;
const stores: PostgresSessionStore[] = [];
const writers: WriterProcess[] = [];
before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});
after(async () => {
  for (const writer of writers) writer.child.kill("SIGKILL");
  for (const store of stores) await store.close().catch(() => {});
  await server?.close();
});

let databases = 0;
async function database(): Promise<string> {
  const name = `faults_${++databases}`;
  await server.createDatabase(name);
  return server.connectionStringFor(name);
}
async function open(
  url: string,
  options: Partial<PostgresSessionStoreOptions> = {},
  retry?: { attempts: number; deadlineMs: number },
  logger: Logger = silentLogger,
): Promise<PostgresSessionStore> {
  const store = await PostgresSessionStore.open({
    connection: { connectionString: url, logger, ...(retry === undefined ? {} : { retry }) },
    ...options,
  });
  stores.push(store);
  return store;
}
const data = (writer: string, i: number): SessionRecord => ({ kind: "data", data: { writer, i } });
const numbers = (records: SessionRecord[]) => records.map((record) => (record as { data: { i: number } }).data.i);
const now = () => new Date().toISOString();

/** Appends to `sessionId` back to back (1 to 3 records each) until `stop()`; counts what was acknowledged. */
function appender(store: PostgresSessionStore, sessionId: string) {
  const acked: number[] = [];
  const failures: unknown[] = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped;) {
      const size = 1 + (i % 3);
      const batch = Array.from({ length: size }, (_, k) => data(sessionId, i + k));
      try {
        await store.append(sessionId, batch);
        for (let k = 0; k < size; k++) acked.push(i + k);
      } catch (error) {
        failures.push(error);
      }
      i += size;
    }
  })();
  return {
    acked,
    failures,
    stop: () => {
      stopped = true;
      return done;
    },
  };
}

/** The records of a session are in increasing order, and every acknowledged one is among them. */
function checkHistory(history: SessionRecord[], acked: readonly number[], label: string): void {
  const stored = numbers(history);
  for (let i = 1; i < stored.length; i++) assert.ok(stored[i]! > stored[i - 1]!, `${label}: in order at ${i}`);
  const present = new Set(stored);
  const lost = acked.filter((n) => !present.has(n));
  assert.deepEqual(lost, [], `${label}: no acknowledged record lost`);
}

for (const mode of ["fast", "immediate"] as const) {
  test(
    `a database ${mode === "fast" ? "restart" : "crash and restart"} mid-append: every acknowledged record is kept, in order; the appends land or fail clearly; the lease holds`,
    { skip: unavailable },
    async () => {
      const url = await database();
      const retried: string[] = [];
      const logger: Logger = { ...silentLogger, debug: (message) => void retried.push(message) };
      const store = await open(url, { leaseTtlMs: 2_000 }, undefined, logger);
      const ids = ["r1", "r2", "r3"];
      for (const sessionId of ids) await store.create({ sessionId, cwd: "/work", createdAt: now(), updatedAt: now() });
      const loops = ids.map((sessionId) => appender(store, sessionId));
      const total = () => loops.reduce((sum, loop) => sum + loop.acked.length, 0);
      while (total() < 600) await new Promise((resolve) => setTimeout(resolve, 10));
      const before = total();
      await server.restart(mode);
      const back = total();
      while (total() < back + 600) await new Promise((resolve) => setTimeout(resolve, 10));
      await Promise.all(loops.map((loop) => loop.stop()));
      assert.ok(back >= before, "nothing was acknowledged twice");
      for (const [index, sessionId] of ids.entries()) {
        const loop = loops[index]!;
        for (const failure of loop.failures) {
          // Only ever the retry bound, with the database named and what to do.
          assert.ok(failure instanceof PostgresUnavailableError, String(failure));
          assert.match(failure.message, /Check that the database is running/);
        }
        checkHistory(await store.history(sessionId), loop.acked, sessionId);
        // The lease held: this store still writes, and another one cannot.
        await store.append(sessionId, [data(sessionId, 1e9)]);
      }
      const other = await open(url, { holderName: "other" });
      await assert.rejects(other.append("r1", [data("other", 0)]), /open for writing in another process/);
      assert.equal(
        loops.reduce((sum, loop) => sum + loop.failures.length, 0),
        0,
        "the retry bound rides out a restart",
      );
      assert.ok(
        retried.some((line) => line.startsWith("postgres: append session records failed")),
        "an append was in flight when the server went, and was retried",
      );
    },
  );
}

test(
  "an outage longer than the retry bound: appends fail with an error naming the database (never its password) and what to do; afterwards the store carries on, its lease kept",
  { skip: unavailable },
  async () => {
    const url = await database();
    const store = await open(url, { leaseTtlMs: 500 }, { attempts: 4, deadlineMs: 1_500 });
    await store.create({ sessionId: "o1", cwd: "/work", createdAt: now(), updatedAt: now() });
    await store.append("o1", [data("o1", 0)]);
    await server.stop("fast");
    try {
      const started = performance.now();
      const failure = await store.append("o1", [data("o1", 1)]).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failure instanceof PostgresUnavailableError, String(failure));
      assert.ok(performance.now() - started < 5_000, "bounded");
      const message = failure.message;
      assert.match(
        message,
        /append session records failed: PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/faults_\d+/,
      );
      assert.match(message, /Check that the database is running and reachable/);
      assert.ok(!message.includes(server.password) && !String(failure.stack).includes(server.password));
      assert.ok(!JSON.stringify(failure, Object.getOwnPropertyNames(failure)).includes(server.password));
      // Down for longer than the lease time (0.5 s): nobody took the lease, so it still holds once the database is back.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await server.start();
    }
    await store.append("o1", [data("o1", 2)]);
    const stored = numbers(await store.history("o1"));
    assert.deepEqual(
      stored.filter((n) => n !== 1),
      [0, 2],
      "the failed append is absent (or, had its commit been lost, present in its place)",
    );
    assert.ok(stored.indexOf(2) === stored.length - 1);
  },
);

test(
  "kill -9 of a writer process mid-append: every acknowledged record is there, in order; its lease lapses within the lease time",
  { skip: unavailable },
  async () => {
    const url = await database();
    const writer = startWriter(url, "k1", "killed", { leaseTtlMs: 2_000 });
    writers.push(writer);
    await writer.ackedAtLeast(600, 60_000);
    writer.child.kill("SIGKILL");
    const killedAt = performance.now();
    const { signal } = await writer.exited;
    assert.equal(signal, "SIGKILL");
    const acked = writer.acked;
    const next = await open(url, { whenLeased: "wait", leaseWaitMs: 10_000, holderName: "next" });
    const history = await next.history("k1");
    assert.ok(history.length >= acked, `${history.length} records stored, ${acked} acknowledged`);
    assert.deepEqual(
      numbers(history),
      Array.from({ length: history.length }, (_, i) => i),
    );
    await next.append("k1", [data("next", 0)]);
    const tookMs = performance.now() - killedAt;
    assert.ok(tookMs < 2_000 + 2_000, `the dead writer's lease lapsed; taken ${Math.round(tookMs)} ms after the kill`);
    assert.equal((await next.history("k1")).length, history.length + 1);
  },
);
