import assert from "node:assert/strict";
import { test } from "node:test";
import type { LinkReceiver } from "../../jsonrpc/link.js";
import { LINK } from "../../jsonrpc/link.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { createMemoryByteStreams, createMemoryPair } from "../memory.js";
import { faultyLink, faultyReadable, faultyWritable, SeededRandom, withFaults, type FaultEvent } from "./index.js";

const note = (n: number): AnyMessage => ({ jsonrpc: "2.0", method: "note", params: { n } });

function collector() {
  const messages: unknown[] = [];
  const closes: unknown[] = [];
  let onClosed!: (cause: unknown) => void;
  const closed = new Promise<unknown>((resolve) => (onClosed = resolve));
  const receiver: LinkReceiver = {
    message: (m) => messages.push(m),
    problem: () => {},
    closed: (cause) => {
      closes.push(cause);
      onClosed(cause);
    },
  };
  return { messages, closes, closed, receiver };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

const bytesOf = (chunks: Uint8Array[]): number[] => chunks.flatMap((c) => [...c]);

test("the seeded random source repeats its sequence for a seed and refuses a non-integer seed", () => {
  const a = new SeededRandom(42);
  const b = new SeededRandom(42);
  const seqA = Array.from({ length: 50 }, () => a.next());
  assert.deepEqual(
    seqA,
    Array.from({ length: 50 }, () => b.next()),
  );
  assert.ok(seqA.every((x) => x >= 0 && x < 1));
  assert.notDeepEqual(
    seqA,
    Array.from({ length: 50 }, () => new SeededRandom(43).next()),
  );
  assert.throws(() => new SeededRandom(1.5), /must be an integer/);
});

test("faultyLink drops and duplicates by predicate in both directions and records each fault", async () => {
  const [a, b] = createMemoryPair();
  const events: FaultEvent[] = [];
  const faulty = faultyLink(a[LINK]!, {
    send: { drop: (_m, i) => i === 1, duplicate: (_m, i) => i === 2 },
    receive: { drop: (_m, i) => i === 0, duplicate: (_m, i) => i === 1 },
    onFault: (e) => events.push(e),
  });
  const atA = collector();
  const atB = collector();
  faulty.start(atA.receiver);
  b[LINK]!.start(atB.receiver);
  for (let n = 0; n < 4; n++) faulty.send(note(n));
  for (let n = 10; n < 13; n++) b[LINK]!.send(note(n));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(
    atB.messages.map((m) => (m as { params: { n: number } }).params.n),
    [0, 2, 2, 3],
  );
  assert.deepEqual(
    atA.messages.map((m) => (m as { params: { n: number } }).params.n),
    [11, 11, 12],
  );
  assert.deepEqual(
    events.map((e) => `${e.direction}:${e.kind}:${e.index}`),
    ["send:drop:1", "send:duplicate:2", "receive:drop:0", "receive:duplicate:1"],
  );
  assert.equal(faulty.events.length, 4);
});

test("faultyLink with the same seed injects the same probabilistic faults", async () => {
  async function run(seed: number): Promise<number[]> {
    const [a, b] = createMemoryPair();
    const faulty = faultyLink(a[LINK]!, { seed, send: { drop: 0.3, duplicate: 0.3 } });
    const atB = collector();
    faulty.start(collector().receiver);
    b[LINK]!.start(atB.receiver);
    for (let n = 0; n < 100; n++) faulty.send(note(n));
    await new Promise((resolve) => setTimeout(resolve, 20));
    return atB.messages.map((m) => (m as { params: { n: number } }).params.n);
  }
  const first = await run(7);
  assert.deepEqual(await run(7), first);
  assert.ok(first.length !== 100 || new Set(first).size !== 100, "faults were injected");
  assert.throws(() => faultyLink(createMemoryPair()[0][LINK]!, { send: { drop: 2 } }).send(note(0)), /between 0 and 1/);
});

test("faultyLink delays incoming messages in order and ends the input after endAfter messages", async () => {
  const [a, b] = createMemoryPair();
  const faulty = faultyLink(a[LINK]!, { receive: { latencyMs: [1, 5], endAfter: 3 } });
  const atA = collector();
  faulty.start(atA.receiver);
  b[LINK]!.start(collector().receiver);
  for (let n = 0; n < 6; n++) b[LINK]!.send(note(n));
  assert.equal(atA.messages.length, 0, "nothing is delivered before its latency");
  assert.equal(await atA.closed, undefined, "a clean end of input, as a dead peer gives");
  assert.deepEqual(
    atA.messages.map((m) => (m as { params: { n: number } }).params.n),
    [0, 1, 2],
  );
  assert.equal(atA.closes.length, 1);
});

test(
  "faultyLink breaks the output with EPIPE after failAfter messages: the link closes with that error, later " +
    "sends vanish",
  async () => {
    const [a, b] = createMemoryPair();
    const faulty = faultyLink(a[LINK]!, { send: { failAfter: 2 } });
    const atA = collector();
    const atB = collector();
    faulty.start(atA.receiver);
    b[LINK]!.start(atB.receiver);
    for (let n = 0; n < 5; n++) faulty.send(note(n));
    const cause = (await atA.closed) as Error & { code: string; injected: boolean };
    assert.equal(cause.code, "EPIPE");
    assert.equal(cause.injected, true);
    assert.match(cause.message, /after 2 messages/);
    await faulty.drain();
    await atB.closed;
    assert.deepEqual(
      atB.messages.map((m) => (m as { params: { n: number } }).params.n),
      [0, 1],
    );
  },
);

test("withFaults wraps a foreign stream and exposes its fault log", async () => {
  const [a, b] = createMemoryPair();
  const foreign = { readable: a.readable, writable: a.writable };
  const wrapped = withFaults(foreign, { seed: 5, send: { duplicate: 1 } });
  assert.equal(wrapped.faults.seed, 5);
  const atB = collector();
  b[LINK]!.start(atB.receiver);
  const writer = wrapped.writable.getWriter();
  await writer.write(note(1));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(atB.messages.length, 2);
  assert.equal(wrapped.faults.events[0]?.kind, "duplicate");
});

test("faultyReadable fragments at every byte, keeps every byte in order, and honours backpressure", async () => {
  const source = new Uint8Array(Array.from({ length: 300 }, (_, i) => i % 256));
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(source.subarray(0, 100));
      c.enqueue(source.subarray(100));
      c.close();
    },
  });
  const stream = faultyReadable(input, { fragment: "every-byte" });
  const chunks = await readAll(stream);
  assert.equal(chunks.length, 300);
  assert.ok(chunks.every((c) => c.length === 1));
  assert.deepEqual(bytesOf(chunks), [...source]);
  assert.equal(stream.faults.events.filter((e) => e.kind === "fragment").length, 2);
});

test("faultyReadable cut into random pieces is the same for the same seed", async () => {
  const make = () => new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(new Uint8Array(1000)), c.close()) });
  const sizes = async (seed: number) =>
    (await readAll(faultyReadable(make(), { seed, fragment: 17 }))).map((c) => c.length);
  const first = await sizes(3);
  assert.deepEqual(await sizes(3), first);
  assert.equal(
    first.reduce((x, y) => x + y, 0),
    1000,
  );
  assert.ok(first.every((n) => n >= 1 && n <= 17));
});

test(
  "faultyReadable ends mid-frame after endAfterBytes, and " + "errors with ECONNRESET after errorAfterBytes",
  async () => {
    const make = () =>
      new ReadableStream<Uint8Array>({
        start: (c) => (c.enqueue(new TextEncoder().encode('{"a":1}\n{"b":2}\n')), c.close()),
      });
    const ended = await readAll(faultyReadable(make(), { endAfterBytes: 11 }));
    assert.equal(new TextDecoder().decode(new Uint8Array(bytesOf(ended))), '{"a":1}\n{"b');
    const reader = faultyReadable(make(), { errorAfterBytes: 3 }).getReader();
    assert.deepEqual([...(await reader.read()).value!], [...new TextEncoder().encode('{"a')]);
    await assert.rejects(reader.read(), (error: Error & { code?: string }) => error.code === "ECONNRESET");
  },
);

test(
  "faultyWritable writes in pieces, then fails with EPIPE after " + "failAfterBytes (the bytes before it written)",
  async () => {
    const written: number[] = [];
    let writes = 0;
    const output = new WritableStream<Uint8Array>({ write: (c) => void (writes++, written.push(...c)) });
    const stream = faultyWritable(output, { fragment: "every-byte", failAfterBytes: 5 });
    const writer = stream.getWriter();
    await writer.write(new Uint8Array([1, 2, 3]));
    assert.equal(writes, 3, "partial writes: one per byte");
    await assert.rejects(
      writer.write(new Uint8Array([4, 5, 6, 7])),
      (error: Error & { code?: string }) => error.code === "EPIPE",
    );
    assert.deepEqual(written, [1, 2, 3, 4, 5]);
    assert.equal(stream.faults.events.at(-1)?.kind, "write_error");
  },
);

test(
  "faultyWritable as a slow reader holds the writer: the write " + "settles only after the reader took every piece",
  async () => {
    const [left, right] = createMemoryByteStreams();
    const slow = faultyWritable(left.output, { fragment: 100, seed: 1, bytesPerSecond: 50_000 });
    let settled = false;
    const seenBeforeSettled: number[] = [];
    const reading = (async () => {
      const reader = right.input.getReader();
      let total = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return total;
        total += value.length;
        if (!settled) seenBeforeSettled.push(total);
      }
    })();
    const writer = slow.getWriter();
    await writer.write(new Uint8Array(1000)).then(() => (settled = true));
    await writer.close();
    assert.equal(await reading, 1000);
    assert.ok(seenBeforeSettled.length > 1, "the reader got the bytes piece by piece while the write was pending");
  },
);
