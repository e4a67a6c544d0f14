import assert from "node:assert/strict";
import { it } from "node:test";
import { HeldOutput } from "./held-output.js";
import { ConnectionLimitError, type OutputSink } from "./output-sink.js";

/** An output that records what reaches it (and refuses past `limit` deliveries). */
function recording(limit = Infinity) {
  const seen: string[] = [];
  const ends: string[] = [];
  const sink: OutputSink = {
    deliver(text, sessionId) {
      if (seen.length >= limit) throw new ConnectionLimitError("too much");
      seen.push(`${sessionId ?? "-"}:${text}`);
    },
    backlogged: false,
    bufferedAmount: 0,
    whenRoom: () => Promise.resolve(),
    finish: (code) => void ends.push(`finish ${code}`),
    abort: (code) => void ends.push(`abort ${code}`),
  };
  return { sink, seen, ends };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it("passes deliveries straight through while nothing holds it", () => {
  const { sink, seen } = recording();
  const output = new HeldOutput(sink, () => assert.fail("no limit"));
  output.deliver("a", "s1");
  output.deliver("b", undefined);
  assert.deepEqual(seen, ["s1:a", "-:b"]);
});

it("queues deliveries while held, in order, and passes them on once every hold ended (fulfilled or not)", async () => {
  const { sink, seen } = recording();
  const output = new HeldOutput(sink, () => assert.fail("no limit"));
  output.deliver("before", undefined);
  const first = deferred();
  const second = deferred();
  output.hold(first.promise);
  output.deliver("answer", undefined);
  output.hold(second.promise);
  output.deliver("update", "s1");
  first.resolve();
  await tick();
  assert.deepEqual(seen, ["-:before"], "still held by the second hold");
  assert.equal(output.held, true);
  second.reject(new Error("the write failed"));
  await tick();
  assert.deepEqual(seen, ["-:before", "-:answer", "s1:update"]);
  output.deliver("after", "s1");
  assert.deepEqual(seen.at(-1), "s1:after");
});

it("a finish delivers what is queued first; an abort drops it", async () => {
  const finished = recording();
  const output = new HeldOutput(finished.sink, () => {});
  output.hold(new Promise(() => {}));
  output.deliver("queued", undefined);
  output.finish(1000);
  assert.deepEqual(finished.seen, ["-:queued"]);
  assert.deepEqual(finished.ends, ["finish 1000"]);
  const aborted = recording();
  const other = new HeldOutput(aborted.sink, () => {});
  const hold = deferred();
  other.hold(hold.promise);
  other.deliver("queued", undefined);
  other.abort(1011);
  hold.resolve();
  await tick();
  assert.deepEqual(aborted.seen, []);
  assert.deepEqual(aborted.ends, ["abort 1011"]);
});

it("a queued delivery past a limit, passed on later, closes the connection through its callback", async () => {
  const { sink, seen } = recording(1);
  const limits: ConnectionLimitError[] = [];
  const output = new HeldOutput(sink, (error) => limits.push(error));
  const hold = deferred();
  output.hold(hold.promise);
  output.deliver("one", undefined);
  output.deliver("two", undefined);
  hold.resolve();
  await tick();
  assert.deepEqual(seen, ["-:one"]);
  assert.equal(limits.length, 1);
});
