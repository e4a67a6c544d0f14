import assert from "node:assert/strict";
import { test } from "node:test";
import { waitUntil } from "@acpkit/sdk/node";
import { PrefaultedSlabs } from "./prefaulted-slabs.js";

const MiB = 1024 * 1024;

test("slabs are mapped ahead by the worker, and taking one asks for the next", { timeout: 20_000 }, async () => {
  const rssBefore = process.memoryUsage().rss;
  const slabs = new PrefaultedSlabs(4 * MiB, 2);
  try {
    assert.ok(await waitUntil(() => slabs.ready === 2, 10_000, 5), "two slabs ready");
    // Their pages are resident already: the worker touched every one of them.
    assert.ok(process.memoryUsage().rss - rssBefore >= 7 * MiB, "8 MiB mapped ahead");
    const slab = slabs.take();
    assert.equal(slab.length, 4 * MiB);
    assert.ok(slab.buffer instanceof SharedArrayBuffer, "a slab from the worker");
    assert.equal(slabs.ready, 1);
    assert.ok(await waitUntil(() => slabs.ready === 2, 10_000, 5), "the one taken is replaced");
    slab.fill(7);
    assert.notEqual(slabs.take().buffer, slab.buffer, "never the same memory twice");
  } finally {
    slabs.close();
  }
});

test("none ahead, or none ready yet: a slab is allocated on the spot", () => {
  const none = new PrefaultedSlabs(MiB, 0);
  const slab = none.take();
  assert.equal(slab.length, MiB);
  assert.ok(!(slab.buffer instanceof SharedArrayBuffer));
  none.close();
  const early = new PrefaultedSlabs(MiB, 2);
  assert.equal(early.take().length, MiB, "taken before the worker answered");
  early.close();
});
