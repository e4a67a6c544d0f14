import assert from "node:assert/strict";
import { test } from "node:test";
import type { ByteSink } from "./bytes.js";
import { FrameWriter } from "./frame-writer.js";

/** A sink whose writes complete only when the test says so. */
function heldSink() {
  const writes: Array<string | Uint8Array> = [];
  const pending: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  const sink: ByteSink = {
    write: (text) => new Promise<void>((resolve, reject) => (writes.push(text), pending.push({ resolve, reject }))),
    close: () => Promise.resolve(),
  };
  const completeAll = async () => {
    while (pending.length > 0) {
      pending.shift()!.resolve();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { sink, writes, pending, completeAll };
}

const asText = (write: string | Uint8Array): string =>
  typeof write === "string" ? write : new TextDecoder().decode(write);

const frame = (i: number) => `{"jsonrpc":"2.0","method":"n","params":{"i":${i},"pad":"${"x".repeat(100)}"}}`;

test("a whole turn queued without waiting goes out in order, in bounded batches, never one giant copy", async () => {
  const { sink, writes, completeAll } = heldSink();
  const writer = new FrameWriter(sink, 1024 * 1024, () => assert.fail("no error expected"));
  const count = 40_000; // about 5 MiB
  for (let i = 0; i < count; i++) writer.push(frame(i));
  await Promise.resolve();
  await completeAll();
  assert.ok(writes.length >= 5, `expected several batches, got ${writes.length}`);
  assert.ok(
    writes.every((w) => typeof w === "string" && w.length <= 1024 * 1024),
    "no batch over the limit",
  );
  assert.equal(writes.map(asText).join(""), Array.from({ length: count }, (_, i) => frame(i) + "\n").join(""));
});

test("a single frame larger than a batch is written alone", async () => {
  const { sink, writes, completeAll } = heldSink();
  const writer = new FrameWriter(sink, 1024, () => {});
  const big = `"${"y".repeat(2 * 1024 * 1024)}"`;
  writer.push("a");
  await Promise.resolve();
  writer.push(big);
  writer.push("b");
  await completeAll();
  assert.deepEqual(
    writes.map((w) => w.length),
    [2, big.length + 1, 2],
  );
});

test("an encoded line is written alone, as it is, in its place among the text frames", async () => {
  const { sink, writes, completeAll } = heldSink();
  const writer = new FrameWriter(sink, 1024 * 1024, () => assert.fail("no error expected"));
  const line = new TextEncoder().encode('{"big":"é"}\n');
  writer.push("a");
  await Promise.resolve();
  writer.push("b");
  writer.push("c");
  writer.push(line);
  writer.push("d");
  assert.equal(writer.pending, 2 + 2 + 2 + line.length + 2, "units: text with its newline, bytes as they are");
  await completeAll();
  assert.deepEqual(writes.slice(0, 2), ["a\n", "b\nc\n"]);
  assert.equal(writes[2], line, "the very bytes pushed, not a copy");
  assert.deepEqual(writes.slice(3), ["d\n"]);
  assert.equal(writer.pending, 0);
});

test("drain() waits while output is above the high-water mark, one shared promise for all callers", async () => {
  const { sink, completeAll } = heldSink();
  const writer = new FrameWriter(sink, 1000, () => {});
  assert.equal(await writer.drain(), undefined);
  for (let i = 0; i < 100; i++) writer.push(frame(i));
  const first = writer.drain();
  const second = writer.drain();
  assert.equal(first, second, "callers above the mark share one promise");
  let drained = false;
  void first.then(() => (drained = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(drained, false);
  await completeAll();
  await first;
  assert.equal(writer.pending, 0);
});

test("a failed write kills the writer, releases drain waiters, and drops later frames silently", async () => {
  const { sink, pending } = heldSink();
  const errors: unknown[] = [];
  const writer = new FrameWriter(sink, 10, (e) => errors.push(e));
  writer.push(frame(1));
  writer.push(frame(2));
  await Promise.resolve();
  const waiting = writer.drain();
  pending.shift()!.reject(new Error("EPIPE"));
  await waiting;
  assert.equal(errors.length, 1);
  assert.equal(writer.stopped, true);
  writer.push(frame(3));
  assert.equal(writer.pending, 0);
});
