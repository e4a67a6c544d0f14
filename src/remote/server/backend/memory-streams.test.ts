import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveLimits } from "../limits.js";
import type { ConnectionLimitError } from "../output-sink.js";
import type { Refusal, StreamReader } from "./backend.js";
import { sseEvents } from "../testing/sse-events.js";
import { MemoryStreams, RETAINING_STREAMS } from "./memory-streams.js";

function streams(limits: Parameters<typeof resolveLimits>[0] = {}) {
  const seen = { limits: [] as ConnectionLimitError[], open: [] as number[] };
  const output = new MemoryStreams(resolveLimits(limits), {
    onLimit: (error) => seen.limits.push(error),
    onOpenStreams: (count) => seen.open.push(count),
  });
  return { output, seen };
}

function reader(opened: StreamReader | Refusal): StreamReader {
  assert.ok("take" in opened, `expected a reader, got ${JSON.stringify(opened)}`);
  return opened;
}

function refusal(opened: StreamReader | Refusal): Refusal {
  assert.ok(!("take" in opened), "expected a refusal");
  return opened;
}

function takeAll(stream: StreamReader): Array<[string | undefined, string]> {
  const events: Array<[string | undefined, string]> = [];
  for (let bytes = stream.take(Infinity); bytes !== undefined; bytes = stream.take(Infinity))
    events.push(...sseEvents(bytes));
  return events;
}

/** Sends two events on the session's stream and reads them, then lets the reader go; returns the first one's id. */
function readOnce(output: MemoryStreams, sessionId: string): string {
  output.deliver(`{"for":"${sessionId}"}`, sessionId);
  output.deliver("{}", sessionId);
  const stream = reader(output.openStream(sessionId));
  const [[id]] = takeAll(stream) as [[string, string]];
  stream.release();
  return id;
}

test("statuses of openStream: 409 busy without a cursor, 429 too many open, 400 malformed or ahead, 404 once over", () => {
  const { output } = streams({ maxOpenSessionStreams: 1 });
  const first = reader(output.openStream("s1"));
  assert.equal(refusal(output.openStream("s1")).status, 409);
  assert.equal(refusal(output.openStream(undefined, "x")).status, 400);
  const tooMany = refusal(output.openStream("s2"));
  assert.equal(tooMany.status, 429);
  assert.match(tooMany.message, /maxOpenSessionStreams/);
  output.deliver("{}", "s1");
  assert.equal(refusal(output.openStream("s1", "7")).status, 400, "ahead of the stream's last event");
  const taken = takeAll(first);
  first.release();
  assert.equal(output.hasSession("s2"), false, "a refused GET leaves no stream behind");
  output.abort();
  assert.equal(refusal(output.openStream("s1", taken[0]![0])).status, 404);
  assert.equal(refusal(output.openStream(undefined)).status, 404);
});

test("a resuming reader takes the stream over; the displaced one ends without taking more", () => {
  const { output, seen } = streams();
  output.deliver("{}", undefined);
  const old = reader(output.openStream(undefined));
  const [[id]] = takeAll(old) as [[string, string]];
  output.deliver('{"n":2}', undefined);
  const fresh = reader(output.openStream(undefined, id));
  assert.equal(old.ended, true);
  assert.equal(old.take(Infinity), undefined, "a displaced reader takes nothing");
  assert.deepEqual(
    takeAll(fresh).map(([, text]) => text),
    ['{"n":2}'],
  );
  old.release();
  assert.equal(fresh.ended, false, "the displaced reader's release does not end the new one");
  assert.equal(output.openStreams, 1);
  assert.deepEqual(seen.open, [1], "a takeover does not change the count of open streams");
});

test(`at most ${RETAINING_STREAMS} session streams without a reader keep events; older ones are forgotten (410)`, () => {
  const { output, seen } = streams();
  const ids = new Map<string, string>();
  for (let i = 0; i <= RETAINING_STREAMS; i++) ids.set(`s${i}`, readOnce(output, `s${i}`));
  const expired = refusal(output.openStream("s0", ids.get("s0")));
  assert.equal(expired.status, 410);
  assert.match(expired.message, /^Gone: .*no longer kept/);
  const kept = reader(output.openStream(`s${RETAINING_STREAMS}`, ids.get(`s${RETAINING_STREAMS}`)));
  assert.deepEqual(
    takeAll(kept).map(([, text]) => text),
    ["{}"],
    "resumed after its first event",
  );
  assert.equal(seen.limits.length, 0);
});

test("a kept stream that gets new output buffers again, within maxBufferedSessionStreams", () => {
  const { output } = streams({ maxBufferedSessionStreams: 1 });
  readOnce(output, "a");
  readOnce(output, "b");
  readOnce(output, "c");
  assert.equal(output.bufferedChars, 0, "kept events are not output waiting for the client");
  output.deliver("{}", "a");
  assert.equal(output.bufferedChars, 2);
  assert.equal(output.hasSession("a"), true);
  assert.throws(() => output.deliver("{}", "b"), /output for 2 sessions is waiting.*maxBufferedSessionStreams 1/);
});

test("kept events do not count against maxBufferedBytes; only what no reader took does", () => {
  const { output } = streams({ maxBufferedBytes: 100 });
  const stream = reader(output.openStream(undefined));
  for (let i = 0; i < 10; i++) output.deliver("x".repeat(50), undefined);
  assert.equal(output.backlogged, true);
  takeAll(stream);
  assert.equal(output.bufferedChars, 0);
  assert.equal(output.backlogged, false);
});
