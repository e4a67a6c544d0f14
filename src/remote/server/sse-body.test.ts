import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamReader } from "./backend/backend.js";
import { sseBody } from "./sse-body.js";
import { encodeSse, sseEventText } from "./sse-format.js";

/** A reader of `events`, then ended when `ends` (else waiting for ever). */
function reader(events: string[], ends: boolean): StreamReader & { released: boolean } {
  let next = 0;
  const self = {
    released: false,
    get ended() {
      return ends && next === events.length;
    },
    take: () => (next < events.length ? encodeSse(sseEventText(next + 1, events[next++]!)) : undefined),
    wait: () => (ends ? Promise.resolve() : new Promise<void>(() => {})),
    release: () => void (self.released = true),
  };
  return self;
}

async function text(stream: ReadableStream<Uint8Array>, chunks?: number): Promise<string> {
  const decoder = new TextDecoder();
  const source = stream.getReader();
  let out = "";
  for (let i = 0; chunks === undefined || i < chunks; i++) {
    const { done, value } = await source.read();
    if (done) break;
    out += decoder.decode(value);
  }
  if (chunks !== undefined) await source.cancel();
  return out;
}

test("a stream the reader ended ends with the end event, after its events", async () => {
  const ended = reader(['{"a":1}', '{"b":2}'], true);
  assert.equal(
    await text(sseBody(ended, { keepAliveMs: 60_000, onClose: () => {} })),
    'id: 1\ndata: {"a":1}\n\nid: 2\ndata: {"b":2}\n\nevent: end\n\n',
  );
  assert.equal(ended.released, true);
});

test("a stream whose reader never ends has no end event: cancelled by its consumer, it just stops", async () => {
  const open = reader(['{"a":1}'], false);
  let closed = 0;
  const bytes = await text(sseBody(open, { keepAliveMs: 60_000, onClose: () => closed++ }), 1);
  assert.equal(bytes, 'id: 1\ndata: {"a":1}\n\n');
  assert.equal(closed, 1);
  assert.equal(open.released, true);
});
