import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LINK, type FrameProblem, type MessageLink, type Stream } from "../jsonrpc/link.js";
import { MessageTooLargeError, UnserializableValueError } from "../jsonrpc/local-errors.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { createMemoryByteStreams } from "./memory.js";
import { DEFAULT_MAX_MESSAGE_BYTES, ndJsonStream, type NdJsonStreamOptions } from "./ndjson.js";
import { webByteSink, webByteSource } from "./bytes.js";
import { NdJsonLink } from "./ndjson-link.js";

const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array[]): string => new TextDecoder().decode(concat(bytes));
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** A byte input fed by hand. */
function manualInput(): {
  input: ReadableStream<Uint8Array>;
  push(bytes: Uint8Array): void;
  end(): void;
  fail(e: unknown): void;
  cancelled: () => boolean;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const input = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (cancelled = true),
  });
  return {
    input,
    push: (b) => controller.enqueue(b),
    end: () => controller.close(),
    fail: (e) => controller.error(e),
    cancelled: () => cancelled,
  };
}

/** A byte output that records each write. */
function recordingOutput(fail?: unknown): {
  output: WritableStream<Uint8Array>;
  writes: Uint8Array[];
  closed: () => boolean;
} {
  const writes: Uint8Array[] = [];
  let closed = false;
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      if (fail !== undefined) throw fail;
      writes.push(chunk);
    },
    close: () => void (closed = true),
  });
  return { output, writes, closed: () => closed };
}

/** Starts the stream's link, recording what it delivers. */
function receive(stream: Stream) {
  const messages: unknown[] = [];
  const problems: FrameProblem[] = [];
  const closes: unknown[] = [];
  let onClosed!: (cause: unknown) => void;
  const closed = new Promise<unknown>((resolve) => (onClosed = resolve));
  const link = stream[LINK]!;
  link.start({
    message: (m) => messages.push(m),
    problem: (p) => problems.push(p),
    closed: (cause) => {
      closes.push(cause);
      onClosed(cause);
    },
  });
  return { link, messages, problems, closes, closed };
}

function parseBytes(bytes: Uint8Array[], options?: NdJsonStreamOptions) {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const b of bytes) c.enqueue(b);
      c.close();
    },
  });
  return receive(ndJsonStream(recordingOutput().output, input, options));
}

const note = (i: number, text = "x"): AnyMessage => ({ jsonrpc: "2.0", method: "note", params: { i, text } });

describe("ndJsonStream framing", () => {
  const msgs = [note(1, "é"), note(2, "你好"), note(3, "😀 emoji"), { jsonrpc: "2.0", id: 4, result: { ok: true } }];
  const wire = enc(msgs.map((m) => JSON.stringify(m)).join("\r\n\n") + "\n   \n" + JSON.stringify(note(5)));
  const expected = [...msgs, note(5)];

  it("exports the official default limit", () => assert.equal(DEFAULT_MAX_MESSAGE_BYTES, 32 * 1024 * 1024));

  it("delivers the same messages for every split point, in 1-byte chunks and all at once", async () => {
    const whole = parseBytes([wire]);
    await whole.closed;
    assert.deepEqual(whole.messages, expected);
    assert.deepEqual(whole.problems, []);
    for (let i = 0; i <= wire.length; i++) {
      const r = parseBytes([wire.subarray(0, i), wire.subarray(i)]);
      assert.equal(await r.closed, undefined);
      assert.deepEqual(r.messages, expected, `split at byte ${i}`);
      assert.deepEqual(r.problems, []);
    }
    const bytewise = parseBytes([...wire].map((b) => Uint8Array.of(b)));
    await bytewise.closed;
    assert.deepEqual(bytewise.messages, expected);
  });

  it("skips an oversized line with a too_large problem, and delivers the next line", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "big", params: { pad: "p".repeat(500) } });
    for (const chunkSize of [1_000_000, 16]) {
      const all = enc(`${big}\n${JSON.stringify(note(8))}\n`);
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < all.length; i += chunkSize) chunks.push(all.subarray(i, i + chunkSize));
      const r = parseBytes(chunks, { maxMessageBytes: 100 });
      await r.closed;
      assert.deepEqual(r.messages, [note(8)]);
      assert.equal(r.problems.length, 1);
      const p = r.problems[0]!;
      assert.ok(p.kind === "too_large");
      assert.equal(p.limit, 100);
      assert.ok(p.head.startsWith('{"jsonrpc":"2.0","id":7,"method":"big"'), p.head);
      if (chunkSize > all.length) assert.equal(p.bytes, big.length);
      else assert.ok(p.bytes > 100 && p.bytes <= 117);
    }
  });

  it("raises too_large before the oversized line ends, holding at most the limit", async () => {
    const manual = manualInput();
    const link = new NdJsonLink(webByteSource(manual.input), webByteSink(recordingOutput().output), {
      maxMessageBytes: 1024,
    });
    const r = receive({ [LINK]: link } as unknown as Stream);
    manual.push(enc('{"id":1,"method":"m","params":{"x":"'));
    let held = 0;
    for (let i = 0; i < 2000 && r.problems.length === 0; i++) {
      manual.push(new Uint8Array(100).fill(0x61));
      await tick();
      held = Math.max(held, link.bufferedInputBytes);
    }
    assert.equal(r.problems.length, 1, "reported while the line is still arriving");
    assert.ok(held <= 1025, `held ${held} bytes`);
    for (let i = 0; i < 100; i++) manual.push(new Uint8Array(100_000).fill(0x61));
    await tick();
    assert.equal(link.bufferedInputBytes, 0, "the rest of the line is discarded, not buffered");
    manual.push(enc('aaa"}}\n{"jsonrpc":"2.0","method":"after"}\n'));
    manual.end();
    await r.closed;
    assert.equal(r.problems.length, 1);
    assert.deepEqual(r.messages, [{ jsonrpc: "2.0", method: "after" }]);
  });

  it("reports non-JSON lines as parse problems and carries on", async () => {
    const long = "log line ".repeat(50);
    const r = parseBytes([enc(`hello world\n{bad json\n  [1,\n${long}\n{"jsonrpc":"2.0","method":"ok"}\n`)]);
    await r.closed;
    assert.deepEqual(r.messages, [{ jsonrpc: "2.0", method: "ok" }]);
    assert.deepEqual(
      r.problems.map((p) => p.kind === "parse" && [p.preview, p.looksLikeJson]),
      [
        ["hello world", false],
        ["{bad json", true],
        ["  [1,", true],
        [long.slice(0, 200), false],
      ],
    );
    assert.ok(r.problems.every((p) => p.kind === "parse" && p.detail.length > 0));
  });

  it("delivers any JSON value to the link (the engine validates)", async () => {
    const r = parseBytes([enc('1\n"s"\n[1,2]\nnull\n')]);
    await r.closed;
    assert.deepEqual(r.messages, [1, "s", [1, 2], null]);
  });

  it("ends with closed(error) when the input fails", async () => {
    const manual = manualInput();
    const r = receive(ndJsonStream(recordingOutput().output, manual.input));
    manual.push(enc('{"a":1}\n'));
    const boom = new Error("read failed");
    await tick();
    manual.fail(boom);
    assert.equal(await r.closed, boom);
    assert.deepEqual(r.messages, [{ a: 1 }]);
  });

  it("ends with closed(error) when the receiver throws, and closes once", async () => {
    const boom = new Error("receiver bug");
    const closes: unknown[] = [];
    const input = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(enc("{}\n{}\n")) });
    ndJsonStream(recordingOutput().output, input)[LINK]!.start({
      message: () => {
        throw boom;
      },
      problem: () => {},
      closed: (cause) => closes.push(cause),
    });
    await tick();
    assert.deepEqual(closes, [boom]);
  });
});

describe("ndJsonStream closing", () => {
  it("delivers nothing more once close() is called from inside the receiver", async () => {
    const got: unknown[] = [];
    const closes: unknown[] = [];
    const input = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(enc("1\n2\n{oops\n3\n")) });
    const link = ndJsonStream(recordingOutput().output, input)[LINK]!;
    link.start({
      message: (m) => {
        got.push(m);
        void link.close();
      },
      problem: (p) => got.push(p),
      closed: (cause) => closes.push(cause),
    });
    await tick();
    assert.deepEqual(got, [1]);
    assert.deepEqual(closes, [undefined]);
  });
});

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
