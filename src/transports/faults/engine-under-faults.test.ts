/**
 * The JSON-RPC engine over the fault-injection transports: every request answered exactly once or failed with a
 * local error that says why, nothing resolved twice, nothing hangs, whatever the wire does.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { JsonRpcConnection, type Dispatcher } from "../../jsonrpc/connection.js";
import { LINK, type MessageLink } from "../../jsonrpc/link.js";
import { ConnectionClosedError, RequestTimeoutError } from "../../jsonrpc/local-errors.js";
import { silentLogger } from "../../jsonrpc/logger.js";
import { createMemoryByteStreams, createMemoryPair } from "../memory.js";
import { ndJsonStream } from "../ndjson.js";
import { faultyLink, faultyReadable, faultyWritable } from "./index.js";

const echo: Dispatcher = { request: (_method, params) => params, notification: () => {} };
const quiet = { logger: silentLogger };

function connect(left: MessageLink, right: MessageLink, dispatcher: Dispatcher = echo) {
  const caller = new JsonRpcConnection(left, { request: () => null, notification: () => {} }, quiet);
  const server = new JsonRpcConnection(right, dispatcher, quiet);
  return { caller, server };
}

test("a duplicated response resolves its request once; the connection keeps working", async () => {
  const [a, b] = createMemoryPair();
  const wrapped = faultyLink(a[LINK]!, { receive: { duplicate: 1 } });
  const { caller } = connect(wrapped, b[LINK]!);
  const results = await Promise.all(Array.from({ length: 50 }, (_, n) => caller.request("echo", { n })));
  assert.deepEqual(
    results,
    Array.from({ length: 50 }, (_, n) => ({ n })),
  );
  assert.equal(wrapped.events.filter((e) => e.kind === "duplicate").length, 50);
  assert.equal(caller.pendingRequestCount, 0);
  assert.deepEqual(await caller.request("echo", { v: "after" }), { v: "after" });
  assert.equal(caller.isClosed, false);
});

test(
  "duplicated requests are each answered (the engine does not crash); the duplicate answer is ignored by the " +
    "caller",
  async () => {
    const [a, b] = createMemoryPair();
    let calls = 0;
    const { caller } = connect(faultyLink(a[LINK]!, { send: { duplicate: 1 } }), b[LINK]!, {
      request: (_m, p) => (calls++, p),
      notification: () => {},
    });
    assert.deepEqual(await caller.request("echo", { v: 1 }), { v: 1 });
    assert.deepEqual(await caller.request("echo", { v: 2 }), { v: 2 });
    assert.ok(calls >= 3, "the server ran the duplicates too");
    assert.equal(caller.isClosed, false);
  },
);

test("a dropped response is caught by the request's timeout; later requests are answered", async () => {
  const [a, b] = createMemoryPair();
  const { caller } = connect(faultyLink(a[LINK]!, { receive: { drop: (_m, index) => index === 0 } }), b[LINK]!);
  await assert.rejects(
    caller.request("echo", { v: "lost" }, { timeoutMs: 200 }),
    (error) => error instanceof RequestTimeoutError && /echo/.test(error.message),
  );
  assert.deepEqual(await caller.request("echo", { v: "next" }, { timeoutMs: 30_000 }), { v: "next" });
});

test(
  "a dropped request is caught by the timeout too; the server " + "never saw it and later requests are answered",
  async () => {
    const [a, b] = createMemoryPair();
    const seen: unknown[] = [];
    const { caller } = connect(faultyLink(a[LINK]!, { send: { drop: (_m, index) => index === 0 } }), b[LINK]!, {
      request: (_m, p) => (seen.push(p), p),
      notification: () => {},
    });
    await assert.rejects(caller.request("echo", { v: "lost" }, { timeoutMs: 200 }), RequestTimeoutError);
    assert.deepEqual(await caller.request("echo", { v: "next" }), { v: "next" });
    assert.deepEqual(seen, [{ v: "next" }]);
  },
);

test("responses that arrive late and out of step with latency still resolve the right requests", async () => {
  const [a, b] = createMemoryPair();
  const { caller } = connect(faultyLink(a[LINK]!, { seed: 11, receive: { latencyMs: [0, 4] } }), b[LINK]!);
  const results = await Promise.all(Array.from({ length: 40 }, (_, n) => caller.request("echo", { n })));
  assert.deepEqual(
    results,
    Array.from({ length: 40 }, (_, n) => ({ n })),
  );
});

test(
  "NDJSON fragmented at every byte both ways, with partial " + "writes and multi-byte UTF-8: every message intact",
  async () => {
    const [left, right] = createMemoryByteStreams();
    const callerStream = ndJsonStream(
      faultyWritable(left.output, { fragment: "every-byte" }),
      faultyReadable(left.input, { fragment: "every-byte" }),
    );
    const serverStream = ndJsonStream(
      faultyWritable(right.output, { fragment: 3, seed: 2 }),
      faultyReadable(right.input, { fragment: 2, seed: 3 }),
    );
    const { caller } = connect(callerStream[LINK]!, serverStream[LINK]!);
    const texts = ["héllo", "日本語のテキスト", "emoji 🎉🚀", "mixed\u00e9\u4e2d\ud83d\ude00", "x".repeat(5000)];
    const results = await Promise.all(texts.map((text) => caller.request("echo", { text })));
    assert.deepEqual(
      results,
      texts.map((text) => ({ text })),
    );
  },
);

test(
  "EPIPE on the output: pending and later requests fail with " + "ConnectionClosedError carrying the write error",
  async () => {
    const [left, right] = createMemoryByteStreams();
    const callerStream = ndJsonStream(faultyWritable(left.output, { failAfterBytes: 10 }), left.input);
    const serverStream = ndJsonStream(right.output, right.input);
    const { caller } = connect(callerStream[LINK]!, serverStream[LINK]!);
    await assert.rejects(
      caller.request("echo", { v: "x".repeat(100) }),
      (error) => error instanceof ConnectionClosedError && /EPIPE/.test(error.message),
    );
    await assert.rejects(caller.request("echo", { v: "later" }), ConnectionClosedError);
    await caller.closed;
  },
);

test("the peer dies mid-frame: the pending request fails with ConnectionClosedError, nothing hangs", async () => {
  const [left, right] = createMemoryByteStreams();
  const callerStream = ndJsonStream(left.output, faultyReadable(left.input, { endAfterBytes: 20 }));
  const serverStream = ndJsonStream(right.output, right.input);
  const { caller } = connect(callerStream[LINK]!, serverStream[LINK]!);
  await assert.rejects(
    caller.request("echo", { v: "a long enough answer to be cut in the middle" }),
    ConnectionClosedError,
  );
  await caller.closed;
});

test("a connection reset while reading fails the pending request with the reset as cause", async () => {
  const [left, right] = createMemoryByteStreams();
  const callerStream = ndJsonStream(left.output, faultyReadable(left.input, { errorAfterBytes: 5 }));
  const serverStream = ndJsonStream(right.output, right.input);
  const { caller } = connect(callerStream[LINK]!, serverStream[LINK]!);
  await assert.rejects(
    caller.request("echo", { v: "cut" }),
    (error) => error instanceof ConnectionClosedError && /ECONNRESET/.test(error.message),
  );
});

test("the peer exits after N messages (message level): everything pending is rejected once", async () => {
  const [a, b] = createMemoryPair();
  const { caller } = connect(faultyLink(a[LINK]!, { receive: { endAfter: 3 } }), b[LINK]!);
  const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, n) => caller.request("echo", { n })));
  assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 3);
  for (const o of outcomes.filter((o) => o.status === "rejected"))
    assert.ok((o as PromiseRejectedResult).reason instanceof ConnectionClosedError);
});
