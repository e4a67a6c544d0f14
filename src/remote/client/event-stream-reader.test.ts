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
