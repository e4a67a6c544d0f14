import assert from "node:assert/strict";
import { test } from "node:test";
import { AsyncQueue } from "./async-queue.js";

test("values come out in order, whether next() waits or not", async () => {
  const queue = new AsyncQueue<number>();
  const first = queue.next();
  queue.push(1);
  queue.push(2);
  assert.equal(await first, 1);
  assert.equal(await queue.next(), 2);
});

test("a reserved slot holds back what follows until it is settled", async () => {
  const queue = new AsyncQueue<string>();
  queue.push("a");
  const slot = queue.reserve();
  queue.push("c");
  assert.equal(await queue.next(), "a");
  const next = queue.next();
  let settled = false;
  void next.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 1));
  assert.equal(settled, false);
  slot.resolve("b");
  assert.equal(await next, "b");
  assert.equal(await queue.next(), "c");
});

test("an error rejects every waiting next(); queued, it rejects one; clearErrors drops queued errors", async () => {
  const queue = new AsyncQueue<number>();
  const waiting = [queue.next(), queue.next()];
  queue.pushError(new Error("boom"));
  for (const promise of waiting) await assert.rejects(promise, /boom/);
  queue.pushError(new Error("kept"));
  queue.reserve().reject(new Error("slot"));
  queue.pushError(new Error("dropped"));
  queue.clearErrors();
  queue.push(3);
  assert.equal(await queue.next(), 3);
});

test("fail ends the queue after what is queued; later pushes are ignored", async () => {
  const queue = new AsyncQueue<number>();
  queue.push(1);
  queue.fail(new Error("closed"));
  queue.push(2);
  assert.equal(queue.failed, true);
  assert.equal(await queue.next(), 1);
  await assert.rejects(queue.next(), /closed/);
  await assert.rejects(queue.next(), /closed/);
});

test("next(signal): already aborted rejects with the reason and takes nothing", async () => {
  const queue = new AsyncQueue<string>();
  queue.push("kept");
  const controller = new AbortController();
  controller.abort(new Error("not now"));
  await assert.rejects(queue.next(controller.signal), /not now/);
  assert.equal(await queue.next(), "kept");
});

test(
  "next(signal): aborting a waiting read rejects it only; " + "what it would have got goes to the next read",
  async () => {
    const queue = new AsyncQueue<string>();
    const controller = new AbortController();
    const aborted = queue.next(controller.signal);
    const second = queue.next();
    controller.abort(new Error("gave up"));
    await assert.rejects(aborted, /gave up/);
    queue.push("first value");
    assert.equal(await second, "first value", "the aborted read left the line");
    const again = new AbortController();
    const waiting = queue.next(again.signal);
    again.abort(new Error("gave up again"));
    await assert.rejects(waiting, /gave up again/);
    queue.push("later");
    assert.equal(await queue.next(), "later");
  },
);

test("next(signal): a read that got its value ignores a later abort; errors and failure still reach it", async () => {
  const queue = new AsyncQueue<string>();
  const controller = new AbortController();
  const read = queue.next(controller.signal);
  queue.push("value");
  assert.equal(await read, "value");
  controller.abort(new Error("too late"));
  const errored = queue.next(new AbortController().signal);
  queue.pushError(new Error("queued error"));
  await assert.rejects(errored, /queued error/);
  const failed = queue.next(new AbortController().signal);
  queue.fail(new Error("ended"));
  await assert.rejects(failed, /ended/);
});
