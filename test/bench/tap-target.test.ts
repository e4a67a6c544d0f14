/**
 * The tap's targets and the `cat` reference: verdicts from the rounds' paired ratios, and the broken-chunk check.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RepResult, Transport } from "../../bench/harness.js";
import type { Row, Target } from "../../bench/report.js";
import { tapTarget } from "../../bench/tap-target.js";

/** A row of (a) whose round k took `ms[k]`. */
function row(transport: Transport, ms: readonly number[], ok = true): Row {
  const reps: RepResult[] = ms.map((value, k) => ({
    workload: "a",
    impl: "acpkit",
    transport,
    messages: 200_000,
    round: k + 1,
    ms: value,
    throughput: 200_000 / (value / 1000),
    unit: "msg/s",
    clientRss: { baselineBytes: 0, peakBytes: 0 },
    checks: { ok, inOrder: ok, tapFrames: 220_010, ...(ok ? {} : { note: "chunk 7 came before chunk 6" }) },
  }));
  const sorted = [...reps].sort((a, b) => a.ms - b.ms);
  return {
    workload: "a",
    transport,
    impl: "acpkit",
    reps,
    errors: [],
    median: sorted[Math.floor((sorted.length - 1) / 2)],
  };
}

function targets(rows: Row[]): Target[] {
  const out: Target[] = [];
  tapTarget(rows, out);
  return out;
}

test("the tap passes under 1.10x by the median of the rounds' ratios, and fails at or over it", () => {
  const pipe = [100, 200, 100, 300, 100];
  const under = targets([row("pipe", pipe), row("tap", [105, 214, 108, 320, 150])]);
  assert.equal(under[0]!.status, "PASS", under[0]!.detail);
  assert.match(under[0]!.detail, /median of 5 rounds' ratios 1\.07x/);
  const over = targets([row("pipe", pipe), row("tap", [111, 230, 112, 300, 100])]);
  assert.equal(over[0]!.status, "FAIL");
});

test("a tap round that lost or reordered a chunk fails the target whatever the time", () => {
  const out = targets([row("pipe", [100, 100, 100]), row("tap", [100, 100, 100], false)]);
  assert.equal(out[0]!.status, "FAIL");
  assert.match(out[0]!.detail, /3 of 3 reps .* chunk 7 came before chunk 6/);
});

test("cat, the reference: its paired ratio to the direct pipe, and the tap's to cat, as information", () => {
  const out = targets([
    row("pipe", [100, 100, 100, 100]),
    row("tap", [112, 110, 111, 130]),
    row("cat", [110, 108, 110, 100]),
  ]);
  const cat = out.find((t) => t.name.includes("through cat"));
  assert.ok(cat);
  assert.equal(cat.status, "INFO");
  assert.match(cat.detail, /ratios to the direct pipe 1\.09x/);
  assert.match(cat.detail, /acp tap \/ cat, same rounds: 1\.02x/);
  const without = targets([row("pipe", [100, 100, 100]), row("tap", [105, 105, 105])]);
  assert.equal(without.filter((t) => t.name.includes("through cat")).length, 0, "no cat row, no line");
  const broken = targets([row("pipe", [100, 100, 100]), row("cat", [101, 102, 103], false)]);
  const brokenCat = broken.find((t) => t.name.includes("through cat"));
  assert.equal(brokenCat?.status, "N/A");
  assert.match(brokenCat!.detail, /3 of 3 reps through cat did not deliver every chunk in order: chunk 7 came before/);
});
