import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ndJsonStream as officialNdJsonStream } from "@agentclientprotocol/sdk";
import { LINK, type Stream } from "../jsonrpc/link.js";
import { UnserializableValueError } from "../jsonrpc/local-errors.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { createMemoryByteStreams, createMemoryPair } from "./memory.js";
import { ndJsonStream } from "./ndjson.js";
import { linkFromStream } from "./stream-link.js";

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const note = (i: number): AnyMessage => ({ jsonrpc: "2.0", method: "note", params: { i } });

/** A foreign stream as a user might build it: two TransformStreams, no link. */
function foreignPair(): [Stream, Stream] {
  const ab = new TransformStream<AnyMessage, AnyMessage>();
  const ba = new TransformStream<AnyMessage, AnyMessage>();
  return [
    { readable: ba.readable, writable: ab.writable },
    { readable: ab.readable, writable: ba.writable },
  ];
}

function start(stream: Stream) {
  const messages: unknown[] = [];
  const closes: unknown[] = [];
  const link = linkFromStream(stream);
  link.start({ message: (m) => messages.push(m), problem: () => {}, closed: (c) => closes.push(c) });
  return { link, messages, closes };
}

describe("linkFromStream", () => {
  it("returns an acpkit stream's own link", () => {
    const [left] = createMemoryPair();
    assert.equal(linkFromStream(left), left[LINK]);
  });

  it("adapts a foreign stream: ordered sends, every value read is delivered, end -> closed()", async () => {
    const [left, right] = foreignPair();
    const a = start(left);
    const writer = right.writable.getWriter();
    for (let i = 0; i < 5; i++) a.link.send(note(i));
    const reader = right.readable.getReader();
    for (let i = 0; i < 5; i++) assert.deepEqual((await reader.read()).value, note(i));
    await writer.write(42 as unknown as AnyMessage);
    await writer.write(note(7));
    await tick();
    assert.deepEqual(a.messages, [42, note(7)]);
    await writer.close();
    await tick();
    assert.deepEqual(a.closes, [undefined]);
  });

  it("throws UnserializableValueError synchronously and writes nothing", async () => {
    const [left, right] = foreignPair();
    const a = start(left);
    assert.throws(() => a.link.send({ jsonrpc: "2.0", method: "m", params: 1n }), UnserializableValueError);
    a.link.send(note(1));
    const reader = right.readable.getReader();
    assert.deepEqual((await reader.read()).value, note(1));
  });

  it("a read error ends the link with closed(error)", async () => {
    const boom = new Error("read failed");
    const readable = new ReadableStream<AnyMessage>({ start: (c) => c.error(boom) });
    const a = start({ readable, writable: new WritableStream() });
    await tick();
    assert.deepEqual(a.closes, [boom]);
  });

  it("a write error ends the link with closed(error); drain rejects with it; later sends are dropped", async () => {
    const boom = new Error("EPIPE");
    const writable = new WritableStream<AnyMessage>({ write: () => Promise.reject(boom) });
    const a = start({ readable: new ReadableStream(), writable });
    a.link.send(note(1));
    await tick();
    assert.deepEqual(a.closes, [boom]);
    a.link.send(note(2));
    await assert.rejects(a.link.drain(), boom);
    await a.link.close();
    assert.equal(a.closes.length, 1);
  });

  it("close() waits for writes, closes the writable and cancels the readable; idempotent", async () => {
    let closed = false;
    let cancelled = false;
    const written: unknown[] = [];
    const writable = new WritableStream<AnyMessage>({
      write: async (m) => void written.push(m),
      close: () => void (closed = true),
    });
    const readable = new ReadableStream<AnyMessage>({ cancel: () => void (cancelled = true) });
    const a = start({ readable, writable });
    a.link.send(note(1));
    await Promise.all([a.link.close(), a.link.close()]);
    assert.deepEqual(written, [note(1)]);
    assert.equal(closed, true);
    assert.equal(cancelled, true);
    await tick();
    assert.deepEqual(a.closes, [undefined]);
  });

  it("talks to the official SDK's ndJsonStream over bytes", async () => {
    const [a, b] = createMemoryByteStreams();
    const ours = start(ndJsonStream(a.output, a.input));
    const theirs = start(officialNdJsonStream(b.output, b.input) as Stream);
    ours.link.send(note(1));
    theirs.link.send(note(2));
    for (let i = 0; i < 10 && (ours.messages.length === 0 || theirs.messages.length === 0); i++) await tick();
    assert.deepEqual(theirs.messages, [note(1)]);
    assert.deepEqual(ours.messages, [note(2)]);
  });
});
