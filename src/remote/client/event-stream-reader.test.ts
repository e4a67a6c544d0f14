import assert from "node:assert/strict";
import { test } from "node:test";
import { readEventStream } from "./event-stream-reader.js";

/** A body of these chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>) {
  const events: string[] = [];
  const positions: string[] = [];
  const end = await readEventStream(
    stream,
    1 << 20,
    { event: (data) => void events.push(data), tooLarge: () => {}, position: (id) => void positions.push(id) },
    () => undefined,
    () => false,
  );
  return { end, events, positions };
}

test("a body whose last event is the server's end event has ended; one without it was cut", async () => {
  assert.deepEqual(await read(body('id: 1\ndata: {"a":1}\n\n', "event: end\n\n")), {
    end: "ended",
    events: ['{"a":1}'],
    positions: ["1"],
  });
  // A keep-alive after the end event changes nothing.
  assert.equal((await read(body('id: 1\ndata: {"a":1}\n\nevent: end\n\n:\n\n'))).end, "ended");
  // Cut: at an event boundary, or inside an event (which is dropped: resumed from the last whole one).
  assert.deepEqual(await read(body('id: 1\ndata: {"a":1}\n\n')), { end: "cut", events: ['{"a":1}'], positions: ["1"] });
  assert.deepEqual(await read(body('id: 1\ndata: {"a":1}\n\nid: 2\ndata: {"b"')), {
    end: "cut",
    events: ['{"a":1}'],
    positions: ["1"],
  });
  // An end event split across chunks, and one not last (events after it): the last thing read decides.
  assert.equal((await read(body("id: 1\ndata: {}\n\neve", "nt: e", "nd\n", "\n"))).end, "ended");
  assert.equal((await read(body("event: end\n\nid: 2\ndata: {}\n\n"))).end, "cut");
  // Another signal is not the end.
  assert.equal((await read(body("id: 1\ndata: {}\n\nevent: other\n\n"))).end, "cut");
});

/** A body fed by hand: `send` enqueues, `close` ends it. */
function handFed() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    stream,
    send: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

const readSilent = (stream: ReadableStream<Uint8Array>, silenceMs: number, events: string[] = []) =>
  readEventStream(
    stream,
    1 << 20,
    { event: (data) => void events.push(data), tooLarge: () => {} },
    () => undefined,
    () => false,
    silenceMs,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a silence bound: a server that sent keep-alives and then nothing fails the read, saying so", async () => {
  const body = handFed();
  body.send('id: 1\ndata: {"a":1}\n\n:\n\n');
  const started = Date.now();
  const events: string[] = [];
  await assert.rejects(readSilent(body.stream, 100, events), (error: Error) => {
    assert.equal(error.name, "EventStreamSilentError");
    assert.match(error.message, /sent nothing on an event stream for 0 s, not even the keep-alive comments/);
    return true;
  });
  assert.ok(Date.now() - started >= 90, `failed after ${Date.now() - started} ms`);
  assert.deepEqual(events, ['{"a":1}']);
});

test("a silence bound: keep-alives keep the stream, and a server that never sent one is never timed out", async () => {
  const alive = handFed();
  alive.send(":\n\n");
  const reading = readSilent(alive.stream, 150);
  for (let i = 0; i < 6; i++) {
    await sleep(50);
    alive.send(":\n\n");
  }
  alive.close();
  assert.equal(await reading, "cut");

  const quiet = handFed();
  quiet.send('id: 1\ndata: {"a":1}\n\n');
  const waiting = readSilent(quiet.stream, 50);
  const early = await Promise.race([
    waiting.then(
      () => "settled",
      () => "failed",
    ),
    sleep(300).then(() => "waiting"),
  ]);
  assert.equal(early, "waiting", "a long turn without keep-alives is not silence");
  quiet.close();
  assert.equal(await waiting, "cut");
});
