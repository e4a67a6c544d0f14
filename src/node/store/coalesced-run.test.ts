import assert from "node:assert/strict";
import { test } from "node:test";
import { CoalescedRun } from "./coalesced-run.js";

test("concurrent callers share runs: one running, one queued for everyone who came meanwhile", async () => {
  let runs = 0;
  let release: (() => void) | undefined;
  const coalesced = new CoalescedRun(async () => {
    const run = ++runs;
    await new Promise<void>((resolve) => (release = resolve));
    return run;
  });
  const first = coalesced.get();
  const waiting = Array.from({ length: 1000 }, () => coalesced.get());
  assert.equal(runs, 1, "one run at a time");
  release!();
  assert.equal(await first, 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(runs, 2, "the thousand callers share the next run");
  release!();
  assert.deepEqual(new Set(await Promise.all(waiting)), new Set([2]), "each saw a run that started after it asked");
});

test("a failed run fails its callers only; the next caller starts afresh", async () => {
  let calls = 0;
  const coalesced = new CoalescedRun(async () => {
    calls++;
    if (calls === 1) throw new Error("scan failed");
    return calls;
  });
  const failed = coalesced.get();
  const next = coalesced.get();
  await assert.rejects(failed, /scan failed/);
  assert.equal(await next, 2);
  assert.equal(await coalesced.get(), 3);
});
