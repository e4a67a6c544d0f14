/**
 * The PostgreSQL store's write lease, on a real PostgreSQL: one process at a time writes a session; a second one
 * fails at once with a clear error or waits (by option); a released lease is taken at once; a lease taken over is
 * fenced (the old holder writes nothing more), whether the old holder was stalled (SIGSTOP) or busy appending.
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../jsonrpc/logger.js";
import type { SessionRecord } from "../../agent/toolkit/session-store.js";
import { connectToolkit, delay, until } from "../../agent/toolkit/testing/harness.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { SessionLeaseError } from "./postgres-session-lease.js";
import { PostgresSessionStore, type PostgresSessionStoreOptions } from "./postgres-session-store.js";
import { startPausableProxy, type PausableProxy } from "./testing/pausable-proxy.js";
import { startWriter, type WriterProcess } from "./testing/writer-process.js";

const unavailable = postgresUnavailable();
let server: TestPostgres;
const stores: PostgresSessionStore[] = [];
const writers: WriterProcess[] = [];
const proxies: PausableProxy[] = [];
before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});
after(async () => {
  for (const writer of writers) writer.child.kill("SIGKILL");
  for (const proxy of proxies) proxy.resume();
  for (const store of stores) await store.close().catch(() => {});
  for (const proxy of proxies) await proxy.close();
  await server?.close();
});

let databases = 0;
async function database(): Promise<string> {
  const name = `lease_${++databases}`;
  await server.createDatabase(name);
  return server.connectionStringFor(name);
}
async function open(url: string, options: Partial<PostgresSessionStoreOptions> = {}): Promise<PostgresSessionStore> {
  const store = await PostgresSessionStore.open({
    connection: { connectionString: url, logger: silentLogger },
    ...options,
  });
  stores.push(store);
  return store;
}
function writer(...args: Parameters<typeof startWriter>): WriterProcess {
  const started = startWriter(...args);
  writers.push(started);
  return started;
}
const data = (writer: string, i: number): SessionRecord => ({ kind: "data", data: { writer, i } });
const dataOf = (records: SessionRecord[]) =>
  records.map((record) => (record as { data: { writer: string; i: number } }).data);
const now = () => new Date().toISOString();

const leased = (holder: string) => (error: unknown) => {
  assert.ok(error instanceof SessionLeaseError, `a SessionLeaseError, got ${String(error)}`);
  assert.equal(error.code, -32603);
  assert.equal(error.reason, "session_leased");
  assert.equal((error.data as { reason: string }).reason, "session_leased");
  assert.match(error.message, new RegExp(`open for writing in another process \\(${holder}\\)`));
  assert.match(error.message, /Close it there .* and try again; if that process has died, its lease lapses within/);
  return true;
};

test(
  "a second process writing a session fails at once with a clear error, or waits by option; a released lease is taken at once",
  { skip: unavailable },
  async () => {
    const url = await database();
    const holder = writer(url, "s1", "writer-a", { paceMs: 5 });
    await holder.ackedAtLeast(30);

    const other = await open(url, { holderName: "other" });
    const started = performance.now();
    await assert.rejects(other.update("s1", { title: "mine" }), leased("writer-a"));
    await assert.rejects(other.append("s1", [data("other", 0)]), leased("writer-a"));
    await assert.rejects(other.delete("s1"), leased("writer-a"));
    assert.ok(performance.now() - started < 3_000, "refused at once");
    // What a client sees: session/load answers the error, and nothing is replayed.
    const harness = await connectToolkit({ store: other, onPrompt: async () => "end_turn" });
    await assert.rejects(
      harness.client.loadSession({ sessionId: "s1", cwd: "/work", mcpServers: [] }),
      (error: { code?: number; message?: string; data?: { reason?: string } }) =>
        error.code === -32603 && error.data?.reason === "session_leased" && /writer-a/.test(error.message!),
    );
    assert.equal(harness.updates.length, 0);
    // The holder carries on.
    await holder.ackedAtLeast(holder.acked + 30);

    const waiting = await open(url, { whenLeased: "wait", leaseWaitMs: 700 });
    const waitStarted = performance.now();
    await assert.rejects(
      waiting.update("s1", {}),
      (error) => leased("writer-a")(error) && /waited 0\.[6-9]|waited 1\./.test((error as Error).message),
    );
    assert.ok(performance.now() - waitStarted >= 650, "waited for leaseWaitMs");

    const patient = await open(url, { whenLeased: "wait", leaseWaitMs: 30_000, holderName: "patient" });
    const taking = patient.update("s1", { title: "mine now" });
    await delay(300);
    const releasedAt = performance.now();
    await holder.close();
    await taking;
    assert.ok(
      performance.now() - releasedAt < 3_000,
      "taken as the holder released it, not after the lease time (10 s)",
    );
    const history = await patient.history("s1");
    assert.equal(history.length, holder.acked, "every record the holder acknowledged, and nothing else");
    dataOf(history).forEach((record, i) => assert.deepEqual(record, { writer: "writer-a", i }));
    await patient.append("s1", [data("patient", 0)]);
    assert.deepEqual(dataOf(await patient.history("s1")).at(-1), { writer: "patient", i: 0 });
    assert.equal((await patient.get("s1"))?.title, "mine now");
  },
);

test(
  "a stalled process (SIGSTOP) loses its lease after the lease time; another takes over; resumed, it writes nothing more",
  { skip: unavailable },
  async () => {
    const url = await database();
    const stalled = writer(url, "s2", "stalled", { leaseTtlMs: 1_500, paceMs: 2 });
    await stalled.ackedAtLeast(60);
    stalled.child.kill("SIGSTOP");
    const stoppedAt = performance.now();
    const taker = await open(url, { whenLeased: "wait", leaseWaitMs: 10_000, holderName: "taker", leaseTtlMs: 1_500 });
    await taker.update("s2", { title: "taken" });
    const tookMs = performance.now() - stoppedAt;
    assert.ok(tookMs > 400 && tookMs < 1_500 + 2_000, `taken over ${Math.round(tookMs)} ms after the holder stopped`);
    const atTakeover = (await taker.history("s2")).length;
    await taker.append("s2", [data("taker", 0)]);

    stalled.child.kill("SIGCONT");
    const refused = await stalled.until((line) => line.startsWith("refused "));
    assert.match(
      refused,
      /^refused lease_lost .*session s2 lapsed and another process \(taker\) took the session over/,
    );
    assert.match(refused, /writes nothing more to it\. Load the session again/);
    await stalled.exited;
    await taker.append("s2", [data("taker", 1)]);

    const history = dataOf(await taker.history("s2"));
    const old = history.filter((record) => record.writer === "stalled");
    assert.equal(old.length, atTakeover, "nothing written by the old holder after the takeover");
    old.forEach((record, i) => assert.equal(record.i, i));
    assert.ok(stalled.acked <= atTakeover, "every acknowledged record is there");
    assert.deepEqual(history.slice(atTakeover), [
      { writer: "taker", i: 0 },
      { writer: "taker", i: 1 },
    ]);
  },
);

test(
  "a holder cut off from the database mid-append loses its lease after the lease time; its late statements are fenced: every acknowledged record before the takeover, nothing after",
  { skip: unavailable },
  async () => {
    const url = await database();
    const proxy = await startPausableProxy(server.port);
    proxies.push(proxy);
    const viaProxy = url.replace(`127.0.0.1:${server.port}`, `127.0.0.1:${proxy.port}`);
    const a = await open(viaProxy, { holderName: "a", leaseTtlMs: 1_500 });
    await a.create({ sessionId: "s3", cwd: "/work", createdAt: now(), updatedAt: now() });
    let acked = 0;
    let refusal: unknown;
    const loop = (async () => {
      for (let i = 0; ; i++) {
        try {
          await a.append("s3", [data("a", i)]);
          acked = i + 1;
        } catch (error) {
          refusal = error;
          return;
        }
      }
    })();
    await until(() => acked >= 200, 20_000, "200 appends");
    // The network between a and the database stops: a's append in flight and its renewals wait in the proxy.
    proxy.pause();
    const cutAt = performance.now();
    const b = await open(url, { holderName: "b", whenLeased: "wait", leaseWaitMs: 10_000 });
    await b.update("s3", { title: "b's now" });
    const tookMs = performance.now() - cutAt;
    assert.ok(tookMs < 1_500 + 2_000, `taken over ${Math.round(tookMs)} ms after a was cut off`);
    const atTakeover = (await b.history("s3")).length;
    await b.append("s3", [data("b", 0)]);
    // The network is back: a's late statement arrives after the takeover, and is refused.
    proxy.resume();
    await loop;
    assert.ok(refusal instanceof SessionLeaseError && refusal.reason === "lease_lost", String(refusal));
    assert.match((refusal as Error).message, /another process \(b\) took the session over/);
    assert.equal(atTakeover, acked, "the appends acknowledged to a, and no other of a's");
    const history = dataOf(await b.history("s3"));
    assert.deepEqual(
      history.slice(0, acked),
      Array.from({ length: acked }, (_, i) => ({ writer: "a", i })),
    );
    assert.deepEqual(history.slice(acked), [{ writer: "b", i: 0 }]);
    // a stays fenced for this session until it lets go of it; then it can take the lease again once b has.
    await assert.rejects(
      a.update("s3", { title: "a again" }),
      (error) => error instanceof SessionLeaseError && error.reason === "lease_lost",
    );
    await assert.rejects(a.append("s3", [data("a", -1)]), /lapsed and another process \(b\) took/);
    await a.releaseSession("s3");
    await assert.rejects(a.update("s3", { title: "a again" }), leased("b"));
    await b.releaseSession("s3");
    await a.update("s3", { title: "a again" });
    await a.append("s3", [data("a", acked)]);
    assert.deepEqual(dataOf(await b.history("s3")).slice(-2), [
      { writer: "b", i: 0 },
      { writer: "a", i: acked },
    ]);
  },
);

test(
  "through the toolkit: a session closed in one process, or whose connection ended, loads in another without waiting out the lease",
  { skip: unavailable },
  async () => {
    const url = await database();
    const echo = {
      onPrompt: async (turn: { say(text: string): Promise<void>; text: string }) =>
        void (await turn.say(`echo ${turn.text}`)),
    };
    const one = await open(url, { holderName: "one" });
    const two = await open(url, { holderName: "two" });
    const first = await connectToolkit({ store: one, ...echo });
    const { sessionId } = await first.client.newSession({ cwd: "/work", mcpServers: [] });
    await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "a" }] });
    const second = await connectToolkit({ store: two, ...echo });
    await assert.rejects(
      second.client.loadSession({ sessionId, cwd: "/work", mcpServers: [] }),
      /open for writing in another process \(one\)/,
    );
    await first.client.closeSession({ sessionId });
    await second.client.loadSession({ sessionId, cwd: "/work", mcpServers: [] });
    await second.client.prompt({ sessionId, prompt: [{ type: "text", text: "b" }] });
    // The connection ends without closing the session: the session manager lets it go once its writes are done.
    second.client.close();
    const third = await connectToolkit({ store: one, ...echo });
    let loaded = false;
    // Well within the lease time (10 s): the lease was given up, not left to lapse.
    for (const deadline = performance.now() + 2_000; !loaded && performance.now() < deadline;)
      loaded = await third.client.loadSession({ sessionId, cwd: "/work", mcpServers: [] }).then(
        () => true,
        () => delay(20).then(() => false),
      );
    assert.ok(loaded, "loaded after the other connection ended");
    assert.deepEqual(
      third.updates
        .filter((n) => n.update.sessionUpdate === "agent_message_chunk")
        .map((n) => (n.update as { content: { text: string } }).content.text),
      ["echo a", "echo b"],
    );
  },
);
