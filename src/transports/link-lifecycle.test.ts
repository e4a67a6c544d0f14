import assert from "node:assert/strict";
import { test } from "node:test";
import type { LinkReceiver } from "../jsonrpc/link.js";
import { LinkLifecycle } from "./link-lifecycle.js";

function recorder(log: string[]): LinkReceiver {
  return {
    message: (value) => log.push(`message ${JSON.stringify(value)}`),
    problem: (problem) => log.push(`problem ${problem.kind}`),
    closed: (cause) => log.push(`closed ${cause === undefined ? "clean" : String(cause)}`),
  };
}

test("a link is started once: a second receiver is refused", () => {
  const life = new LinkLifecycle();
  assert.equal(life.start(recorder([])), true);
  assert.throws(() => life.start(recorder([])), /already started/);
});

test("finish releases first, then tells the receiver synchronously, once", () => {
  const log: string[] = [];
  const life = new LinkLifecycle((cause) => log.push(`release ${String(cause)}`));
  life.start(recorder(log));
  life.finish("boom");
  life.finish("again");
  life.finishLater("later");
  assert.deepEqual(log, ["release boom", "closed boom"]);
  assert.equal(life.finished, true);
  assert.equal(life.cause, "boom");
});

test("finishLater releases now and tells the receiver in a microtask, never reentrantly", async () => {
  const log: string[] = [];
  const life = new LinkLifecycle(() => log.push("release"));
  life.start(recorder(log));
  life.finishLater(undefined);
  assert.deepEqual(log, ["release"]);
  await Promise.resolve();
  assert.deepEqual(log, ["release", "closed clean"]);
});

test("a link that finished before it was started says so after start, in a microtask", async () => {
  const log: string[] = [];
  const life = new LinkLifecycle(() => log.push("release"));
  life.finish(new Error("input failed").message);
  assert.deepEqual(log, ["release"]);
  assert.equal(life.start(recorder(log)), false, "nothing more to deliver");
  assert.deepEqual(log, ["release"]);
  await Promise.resolve();
  assert.deepEqual(log, ["release", "closed input failed"]);
});

test("close runs the closing once and hands every caller its promise", async () => {
  const life = new LinkLifecycle();
  let runs = 0;
  const first = life.close(async () => {
    runs++;
  });
  const second = life.close(async () => {
    runs++;
  });
  assert.equal(first, second);
  assert.equal(life.closing, true);
  await first;
  assert.equal(runs, 1);
});
