/** ndJsonStream: sending (coalescing, limits, failing outputs) and the web streams face. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LINK, type FrameProblem, type MessageLink } from "../jsonrpc/link.js";
import { MessageTooLargeError, UnserializableValueError } from "../jsonrpc/local-errors.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { createMemoryByteStreams } from "./memory.js";
import { ndJsonStream } from "./ndjson.js";

import { dec, enc, manualInput, note, receive, recordingOutput, tick } from "./testing/ndjson-harness.js";

describe("ndJsonStream sending", () => {
  it("coalesces the messages of one turn into one write", async () => {
    const out = recordingOutput();
    const link = ndJsonStream(out.output, manualInput().input)[LINK]!;
    const sent = Array.from({ length: 1000 }, (_, i) => note(i, "é"));
    for (const m of sent) link.send(m);
    await tick();
    assert.equal(out.writes.length, 1);
    assert.equal(dec(out.writes), sent.map((m) => JSON.stringify(m) + "\n").join(""));
    link.send(note(1000));
    link.send(note(1001));
    await tick();
    assert.equal(out.writes.length, 2);
  });

  it("batches what arrives while a write is in flight", async () => {
    const writes: string[] = [];
    let release!: () => void;
    const output = new WritableStream<Uint8Array>({
      write: (chunk) => {
        writes.push(new TextDecoder().decode(chunk));
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    const link = ndJsonStream(output, manualInput().input, { writeHighWaterMark: 100 })[LINK]!;
    link.send(note(0));
    await tick();
    let drained = false;
    for (let i = 1; i <= 10; i++) {
      link.send(note(i));
      await tick();
    }
    void link.drain().then(() => (drained = true));
    await tick();
    assert.equal(writes.length, 1);
    assert.equal(drained, false, "over the high-water mark while the writes are pending");
    release();
    await tick(); // the write settles on the turn after the stream accepted it
    await tick();
    assert.equal(writes.length, 2, "the ten later messages go out as one write");
    assert.equal(writes[1]!.split("\n").length, 11);
    release();
    await tick();
    await tick();
    assert.equal(drained, true);
  });

  it("batches the messages of a sender that awaits each one, though the output accepts every write at once", async () => {
    // A web stream accepts a write within microtasks, and so does a sender awaiting each notification: settled at once,
    // every message or two would be a write of its own (a system call each under Writable.toWeb).
    const writes: string[] = [];
    const output = new WritableStream<Uint8Array>({
      write: (chunk) => void writes.push(new TextDecoder().decode(chunk)),
    });
    const link = ndJsonStream(output, manualInput().input)[LINK]!;
    const count = 2000;
    for (let i = 0; i < count; i++) {
      link.send(note(i));
      await link.drain();
    }
    while (writes.join("").split("\n").length <= count) await tick();
    assert.ok(writes.length <= 4, `${count} messages went out in ${writes.length} writes`);
    assert.deepEqual(
      writes
        .join("")
        .split("\n")
        .slice(0, count)
        .map((line) => (JSON.parse(line) as { params: { i: number } }).params.i),
      Array.from({ length: count }, (_, i) => i),
    );
  });

  it("throws UnserializableValueError for BigInt, cycles and undefined, and keeps working", async () => {
    const out = recordingOutput();
    const link = ndJsonStream(out.output, manualInput().input)[LINK]!;
    const cyclic: Record<string, unknown> = { jsonrpc: "2.0", method: "c" };
    cyclic.params = cyclic;
    assert.throws(() => link.send({ jsonrpc: "2.0", method: "b", params: { n: 1n } }), UnserializableValueError);
    assert.throws(() => link.send(cyclic as AnyMessage), UnserializableValueError);
    assert.throws(() => link.send(undefined as unknown as AnyMessage), UnserializableValueError);
    link.send(note(1));
    await tick();
    assert.equal(dec(out.writes), JSON.stringify(note(1)) + "\n");
  });

  it("refuses outgoing messages over the limit, counting UTF-8 bytes exactly", async () => {
    const out = recordingOutput();
    const link = ndJsonStream(out.output, manualInput().input, { maxMessageBytes: 100 })[LINK]!;
    const base = JSON.stringify(note(1, "")).length; // ASCII: bytes == length
    assert.throws(() => link.send(note(1, "a".repeat(101 - base))), MessageTooLargeError);
    try {
      link.send(note(1, "é".repeat(60)));
      assert.fail("should throw");
    } catch (e) {
      assert.ok(e instanceof MessageTooLargeError);
      assert.equal(e.maxMessageBytes, 100);
      assert.equal(e.messageBytes, base + 120);
      assert.match(e.message, /outgoing.*not sent/i);
    }
    const fits = note(1, "é".repeat(Math.floor((100 - base) / 2)));
    link.send(fits); // 3 bytes per char would exceed 100, yet it is within the limit
    await tick();
    assert.equal(dec(out.writes), JSON.stringify(fits) + "\n");
  });

  it(
    "close() flushes pending output, leaves the output open for " + "its owner, cancels the input; idempotent",
    async () => {
      const out = recordingOutput();
      const manual = manualInput();
      const r = receive(ndJsonStream(out.output, manual.input));
      r.link.send(note(1));
      r.link.send(note(2));
      const first = r.link.close();
      const second = r.link.close();
      r.link.send(note(3)); // after close: dropped
      await Promise.all([first, second]);
      assert.equal(dec(out.writes), JSON.stringify(note(1)) + "\n" + JSON.stringify(note(2)) + "\n");
      assert.equal(out.closed(), false, "the output belongs to the caller (as with the official SDK)");
      assert.equal(out.output.locked, false);
      await out.output.close();
      assert.equal(out.closed(), true);
      assert.equal(manual.cancelled(), true);
      assert.equal(await r.closed, undefined);
      await tick();
      assert.equal(r.closes.length, 1);
    },
  );

  it("a failing output ends the link with closed(error); sends do not throw", async () => {
    const boom = new Error("EPIPE");
    const r = receive(ndJsonStream(recordingOutput(boom).output, manualInput().input));
    r.link.send(note(1));
    assert.equal(await r.closed, boom);
    r.link.send(note(2));
    await r.link.drain();
    await r.link.close();
    assert.equal(r.closes.length, 1);
  });
});

describe("ndJsonStream web streams", () => {
  it("works through readable/writable, for code that does not use the link", async () => {
    const [a, b] = createMemoryByteStreams();
    const left = ndJsonStream(a.output, a.input);
    const right = ndJsonStream(b.output, b.input);
    const writer = left.writable.getWriter();
    const reader = right.readable.getReader();
    await writer.write(note(1, "é"));
    await writer.write(note(2));
    assert.deepEqual((await reader.read()).value, note(1, "é"));
    assert.deepEqual((await reader.read()).value, note(2));
    await writer.close(); // ends our messages; the bytes stay open, as with the official SDK
    assert.equal(a.output.locked, false);
    await a.output.close(); // the caller closes the bytes: the other side's readable ends
    assert.equal((await reader.read()).done, true);
  });

  it("answers malformed JSON (-32700) and non-object values (-32600) when read as a stream", async () => {
    const out = recordingOutput();
    const problems: FrameProblem[] = [];
    const input = new ReadableStream<Uint8Array>({
      start: (c) => (c.enqueue(enc('{oops\nplain log\n42\n{"jsonrpc":"2.0","method":"m"}\n')), c.close()),
    });
    const stream = ndJsonStream(out.output, input, { onProblem: (p) => problems.push(p) });
    const got: unknown[] = [];
    for await (const m of stream.readable as unknown as AsyncIterable<unknown>) got.push(m);
    await tick();
    assert.deepEqual(got, [{ jsonrpc: "2.0", method: "m" }]);
    assert.equal(problems.length, 2);
    const replies = dec(out.writes)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      replies.map((r) => [r.id, r.error.code]),
      [
        [null, -32700],
        [null, -32600],
      ],
    );
  });

  it("allows only one reader: the link or the readable", () => {
    const one = ndJsonStream(recordingOutput().output, manualInput().input);
    void one.readable;
    assert.throws(
      () => one[LINK]!.start({ message() {}, problem() {}, closed() {} }),
      /already being read through stream.readable/,
    );
    const two = ndJsonStream(recordingOutput().output, manualInput().input);
    (two[LINK] as MessageLink).start({ message() {}, problem() {}, closed() {} });
    assert.throws(() => two.readable, /already being read by an acpkit connection/);
    void two.writable; // writing alongside the link is fine
  });
});
