import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LINK, type Stream } from "../jsonrpc/link.js";
import { MessageTooLargeError, UnserializableValueError } from "../jsonrpc/local-errors.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { createMemoryByteStreams, createMemoryPair } from "./memory.js";
import { ndJsonStream } from "./ndjson.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const note = (i: number): AnyMessage => ({ jsonrpc: "2.0", method: "note", params: { i } });

function receive(stream: Stream) {
  const messages: unknown[] = [];
  const closes: unknown[] = [];
  const link = stream[LINK]!;
  link.start({
    message: (m) => messages.push(m),
    problem: () => assert.fail("no problems in memory"),
    closed: (c) => closes.push(c),
  });
  return { link, messages, closes };
}

describe("createMemoryPair", () => {
  it("delivers copies, in order, asynchronously and in one batch per turn", async () => {
    const [left, right] = createMemoryPair();
    const a = receive(left);
    const b = receive(right);
    const params = { list: [1, 2] };
    const sent: AnyMessage = { jsonrpc: "2.0", method: "m", params };
    a.link.send(sent);
    for (let i = 0; i < 100; i++) a.link.send(note(i));
    assert.equal(b.messages.length, 0, "not delivered synchronously");
    params.list.push(3); // mutating after send does not reach the peer
    await Promise.resolve();
    assert.equal(b.messages.length, 101, "one microtask delivers the whole batch");
    assert.deepEqual(b.messages[0], { jsonrpc: "2.0", method: "m", params: { list: [1, 2] } });
    assert.notEqual(b.messages[0], sent);
    assert.deepEqual(
      b.messages.slice(1),
      Array.from({ length: 100 }, (_, i) => note(i)),
    );
    b.link.send(note(-1));
    await tick();
    assert.deepEqual(a.messages, [note(-1)]);
  });

  it("fails unserializable and oversized sends synchronously", async () => {
    const [left, right] = createMemoryPair({ maxMessageBytes: 64 });
    const a = receive(left);
    const b = receive(right);
    assert.throws(() => a.link.send({ jsonrpc: "2.0", method: "m", params: 1n }), UnserializableValueError);
    assert.throws(() => a.link.send({ jsonrpc: "2.0", method: "m", params: "x".repeat(100) }), MessageTooLargeError);
    a.link.send(note(1));
    await tick();
    assert.deepEqual(b.messages, [note(1)]);
  });

  it("buffers until the peer starts", async () => {
    const [left, right] = createMemoryPair();
    const a = receive(left);
    a.link.send(note(1));
    await left[LINK]!.close();
    await tick();
    const b = receive(right);
    await tick();
    assert.deepEqual(b.messages, [note(1)]);
    assert.deepEqual(b.closes, [undefined]);
  });

  it("close() delivers what was sent, then closed() on both sides, once", async () => {
    const [left, right] = createMemoryPair();
    const a = receive(left);
    const b = receive(right);
    a.link.send(note(1));
    a.link.send(note(2));
    await a.link.close();
    await a.link.close();
    a.link.send(note(3)); // dropped
    b.link.send(note(4)); // the peer's input is over: dropped
    await tick();
    assert.deepEqual(b.messages, [note(1), note(2)]);
    assert.deepEqual(b.closes, [undefined]);
    assert.deepEqual(a.closes, [undefined]);
    assert.deepEqual(a.messages, []);
  });

  it("a throwing receiver ends its side with closed(error)", async () => {
    const [left, right] = createMemoryPair();
    const boom = new Error("bug");
    const closes: unknown[] = [];
    right[LINK]!.start({
      message: () => {
        throw boom;
      },
      problem: () => {},
      closed: (c) => closes.push(c),
    });
    receive(left).link.send(note(1));
    await tick();
    assert.deepEqual(closes, [boom]);
  });

  it("works through readable/writable with backpressure", async () => {
    const [left, right] = createMemoryPair({ readableHighWaterMark: 4 });
    const writer = left.writable.getWriter();
    for (let i = 0; i < 50; i++) await writer.write(note(i));
    await tick();
    const reader = right.readable.getReader();
    const got: unknown[] = [];
    for (let i = 0; i < 50; i++) got.push((await reader.read()).value);
    assert.deepEqual(
      got,
      Array.from({ length: 50 }, (_, i) => note(i)),
    );
    await writer.close();
    assert.equal((await reader.read()).done, true);
  });
});

describe("createMemoryByteStreams", () => {
  it("connects two ndJsonStreams in process", async () => {
    const [a, b] = createMemoryByteStreams();
    const left = receive(ndJsonStream(a.output, a.input));
    const right = receive(ndJsonStream(b.output, b.input));
    for (let i = 0; i < 10; i++) left.link.send(note(i));
    right.link.send(note(99));
    await tick();
    await tick();
    assert.deepEqual(
      right.messages,
      Array.from({ length: 10 }, (_, i) => note(i)),
    );
    assert.deepEqual(left.messages, [note(99)]);
    await left.link.close();
    await tick();
    assert.deepEqual(left.closes, [undefined]);
    assert.deepEqual(right.closes, [], "ndJsonStream leaves its output to the caller");
    await a.output.close(); // the caller ends the bytes, as a client closing an agent's stdin
    await tick();
    assert.deepEqual(right.closes, [undefined]);
  });
});
