import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "../../jsonrpc/logger.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { PostgresUnavailableError } from "./errors.js";
import { listenPostgres, notifyPostgres } from "./listener.js";
import { createPostgresPool, type PostgresPool } from "./pool.js";

const unavailable = postgresUnavailable();
let server: TestPostgres;
let pool: PostgresPool;

before(async () => {
  if (unavailable !== undefined) return;
  server = await startTestPostgres();
  pool = await createPostgresPool({
    connectionString: server.connectionString,
    logger: silentLogger,
    retry: { initialDelayMs: 20, maxDelayMs: 200, attempts: 500, deadlineMs: 60_000 },
  });
});

after(async () => {
  await pool?.end();
  await server?.close();
});

/** Resolves when `predicate` holds, polling; rejects after `ms`. */
async function until(predicate: () => boolean, ms = 15_000, what = "the condition"): Promise<void> {
  const deadline = performance.now() + ms;
  while (!predicate()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

test("notifications on the listened channels arrive, in order; others do not", { skip: unavailable }, async () => {
  const received: string[] = [];
  const listener = await listenPostgres(pool, {
    channels: ["events", "Mixed Case"],
    onNotification: (channel, payload) => received.push(`${channel}:${payload}`),
  });
  try {
    assert.equal(listener.connected, true);
    await notifyPostgres(pool, "events", "1");
    await notifyPostgres(pool, "Mixed Case", "2");
    await notifyPostgres(pool, "elsewhere", "x");
    await notifyPostgres(pool, "events");
    // Inside a transaction: delivered at COMMIT, not before; nothing on ROLLBACK.
    await pool.transaction(async (client) => {
      await notifyPostgres(client, "events", "committed");
    });
    await pool
      .transaction(async (client) => {
        await notifyPostgres(client, "events", "rolled back");
        throw new Error("abort");
      })
      .catch(() => undefined);
    await notifyPostgres(pool, "events", "last");
    await until(() => received.includes("events:last"), 5_000, "the last notification");
    assert.deepEqual(received, ["events:1", "Mixed Case:2", "events:", "events:committed", "events:last"]);
    await listener.listen("late");
    await listener.unlisten("events");
    await notifyPostgres(pool, "events", "after unlisten");
    await notifyPostgres(pool, "late", "hello");
    await until(() => received.includes("late:hello"), 5_000, "the late channel");
    assert.ok(!received.includes("events:after unlisten"));
    assert.deepEqual([...listener.channels].sort(), ["Mixed Case", "late"]);
  } finally {
    await listener.close();
  }
  assert.equal(listener.connected, false);
  await assert.rejects(notifyPostgres(pool, "", "x"), /1 to 63 bytes/);
  await assert.rejects(notifyPostgres(pool, "x".repeat(64)), /1 to 63 bytes/);
});

test(
  "after pg_ctl restart: reconnects by itself, LISTENs again, says it may have missed some",
  { skip: unavailable },
  async () => {
    const received: string[] = [];
    const events: string[] = [];
    const listener = await listenPostgres(pool, {
      channels: ["jobs"],
      onNotification: (_channel, payload) => received.push(payload),
      onDisconnect: (error) => events.push(`down: ${error.message}`),
      onResync: ({ downMs }) => events.push(`resync after ${Math.round(downMs)} ms`),
      reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
      healthCheckMs: 1_000,
    });
    try {
      await notifyPostgres(pool, "jobs", "before");
      await until(() => received.includes("before"));
      await server.restart("fast");
      await until(() => events.some((event) => event.startsWith("resync")), 20_000, "the resync");
      assert.equal(listener.connected, true);
      assert.match(events[0]!, /^down: /);
      assert.equal(events.length, 2, events.join("\n"));
      // Listening again: a notification sent after the resync arrives.
      await pool.retry("notify", () => notifyPostgres(pool, "jobs", "after"));
      await until(() => received.includes("after"), 5_000, "a notification after the restart");

      // A longer outage: stopped, a notification impossible meanwhile, started again a few seconds later.
      await server.stop("immediate");
      await until(() => events.length === 3, 10_000, "the disconnect");
      await sleep(1_500);
      assert.equal(listener.connected, false);
      await server.start();
      await until(() => events.length === 4, 20_000, "the second resync");
      assert.match(events[3]!, /^resync after \d+ ms$/);
      assert.ok(Number(/(\d+) ms/.exec(events[3]!)![1]) >= 1_500);
      await pool.retry("notify", () => notifyPostgres(pool, "jobs", "after outage"));
      await until(() => received.includes("after outage"), 5_000, "a notification after the outage");
      assert.deepEqual(received, ["before", "after", "after outage"]);
    } finally {
      await listener.close();
    }
  },
);

test("a handler that throws does not stop the listener", { skip: unavailable }, async () => {
  const received: string[] = [];
  const errors: string[] = [];
  const logged = await createPostgresPool({
    connectionString: server.connectionString,
    logger: { ...silentLogger, error: (message) => void errors.push(message) },
  });
  const listener = await listenPostgres(logged, {
    channels: ["c"],
    onNotification: (_channel, payload) => {
      if (payload === "boom") throw new Error("handler failed");
      received.push(payload);
    },
  });
  try {
    await notifyPostgres(pool, "c", "boom");
    await notifyPostgres(pool, "c", "fine");
    await until(() => received.includes("fine"));
    assert.match(errors[0]!, /a notification handler for 'c' threw: handler failed/);
  } finally {
    await listener.close();
    await logged.end();
  }
});

test(
  "a database that cannot be reached at start: rejects after the bound; close stops a reconnecting listener",
  {
    skip: unavailable,
  },
  async () => {
    await server.stop("fast");
    try {
      await assert.rejects(
        listenPostgres(pool, {
          channels: ["c"],
          onNotification: () => undefined,
          startRetry: { attempts: 3, initialDelayMs: 10 },
        }),
        (error: unknown) => error instanceof PostgresUnavailableError && /listen failed/.test(error.message),
      );
    } finally {
      await server.start();
    }
    let resyncs = 0;
    const listener = await listenPostgres(pool, {
      channels: ["c"],
      onNotification: () => undefined,
      onResync: () => resyncs++,
      reconnect: { initialDelayMs: 50, maxDelayMs: 100 },
    });
    await server.stop("fast");
    await until(() => !listener.connected, 10_000, "the disconnect");
    await listener.close();
    await server.start();
    await sleep(600);
    assert.equal(resyncs, 0, "a closed listener does not come back");
    const { rows } = await pool.retry("count listeners", () =>
      pool.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN%'"),
    );
    assert.equal(Number(rows[0]!.n), 0);
  },
);
