/**
 * The bench's order check of the chunk streams, and the tap target built on it: chunks that arrive out of order
 * (also by a multiple of 64, where the texts would repeat without the index) are caught, and a tap repetition that
 * delivered them out of order fails the target whatever its time.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChunkOrder } from "../../bench/chunk-order.js";
import type { RepResult, Transport } from "../../bench/harness.js";
import type { Row, Target } from "../../bench/report.js";
import { pairedRatios, spread, tapTarget } from "../../bench/tap-target.js";
import { CHUNK_TEXTS, chunkIndex, chunkText } from "../../bench/workloads.js";

test("each chunk text carries its index and is as long as the text it replaces", () => {
  for (const i of [0, 5, 63, 64, 127, 1000, 65_535, 199_999]) {
    assert.equal(chunkIndex(chunkText(i)), i);
    assert.equal(chunkText(i).length, CHUNK_TEXTS[i & 63]!.length);
  }
  assert.equal(chunkText(7), CHUNK_TEXTS[7]);
});

function seen(indexes: number[]): ChunkOrder {
  const order = new ChunkOrder();
  for (const i of indexes) order.see(chunkText(i));
  return order;
}

test("ChunkOrder: in order passes; a swap, a swap 64 apart, a loss and a duplicate are caught", () => {
  const n = 300;
  const straight = Array.from({ length: n }, (_, i) => i);
  assert.equal(seen(straight).inOrder, true);
  assert.equal(seen(straight).describe(), undefined);

  const swapped = [...straight];
  [swapped[10], swapped[11]] = [swapped[11]!, swapped[10]!];
  const order = seen(swapped);
  assert.equal(order.inOrder, false);
  assert.equal(order.misplaced, 2);
  assert.equal(
    order.describe(),
    "chunk order broken: 2 of 300 chunks out of place, the first at position 10 (it carried chunk 11)",
  );

  const far = [...straight];
  [far[3], far[3 + 64]] = [far[3 + 64]!, far[3]!];
  assert.equal(seen(far).inOrder, false);

  assert.equal(seen(straight.filter((i) => i !== 150)).inOrder, false);
  assert.equal(seen([...straight.slice(0, 20), 19, ...straight.slice(20)]).inOrder, false);

  const noIndex = new ChunkOrder();
  noIndex.see("hello");
  assert.match(noIndex.describe()!, /it carried no index/);
});

function rep(inOrder: boolean | undefined, ms: number, transport: Transport): RepResult {
  return {
    workload: "a",
    impl: "acpkit",
    transport,
    messages: 1000,
    ms,
    throughput: 1000 / (ms / 1000),
    unit: "msg/s",
    clientRss: { baselineBytes: 0, peakBytes: 0 },
    checks: {
      ok: inOrder !== false,
      ...(inOrder === undefined ? {} : { inOrder }),
      ...(inOrder === false
        ? { note: "chunk order broken: 2 of 1000 chunks out of place, the first at position 10 (it carried chunk 11)" }
        : {}),
    },
  };
}

function target(tapReps: RepResult[]): Target {
  const direct = rep(true, 100, "pipe");
  const rows: Row[] = [
    { workload: "a", transport: "pipe", impl: "acpkit", reps: [direct], median: direct, errors: [] },
    { workload: "a", transport: "tap", impl: "acpkit", reps: tapReps, median: tapReps[0], errors: [] },
  ];
  const out: Target[] = [];
  tapTarget(rows, out);
  assert.equal(out.length, 1);
  return out[0]!;
}

test(
  "tap target: PASS only with every rep in order and the time " + "within 10%; a reordered rep fails it however fast",
  () => {
    const good = target([rep(true, 105, "tap"), rep(true, 104, "tap")]);
    assert.equal(good.status, "PASS");
    assert.match(
      good.detail,
      /in each of 2 reps the client received all 1000 chunks, each carrying its index, in order/,
    );

    const reordered = target([rep(true, 101, "tap"), rep(false, 101, "tap")]);
    assert.equal(reordered.status, "FAIL");
    assert.match(
      reordered.detail,
      /1 of 2 reps through the tap \(acpkit\) did not deliver every chunk in order: chunk order broken/,
    );

    const unchecked = target([rep(undefined, 101, "tap")]);
    assert.equal(unchecked.status, "FAIL");
    assert.match(unchecked.detail, /chunk order not checked/);

    assert.equal(target([rep(true, 120, "tap")]).status, "FAIL");
  },
);

test("tap target beside a CPU load: tap+load is compared with pipe+load, each pair on its own", () => {
  const row = (transport: Transport, reps: RepResult[]): Row => ({
    workload: "a",
    transport,
    impl: "acpkit",
    reps,
    median: reps[0],
    errors: [],
  });
  const out: Target[] = [];
  tapTarget(
    [
      row("pipe", [rep(true, 100, "pipe")]),
      row("tap", [rep(true, 105, "tap")]),
      row("pipe+load", [rep(true, 200, "pipe+load")]),
      row("tap+load", [rep(true, 230, "tap+load")]),
    ],
    out,
  );
  assert.deepEqual(
    out.map((t) => t.status),
    ["PASS", "FAIL"],
  );
  assert.match(out[1]!.name, /beside a CPU load/);
  assert.match(out[1]!.detail, /230\.0 ms vs 200\.0 ms \(acpkit\) = 1\.15x/);
});

test("tap target: the median of the rounds' ratios decides, each tap rep paired with the direct rep of its round", () => {
  const inRound = (r: RepResult, round: number): RepResult => ({ ...r, round });
  const row = (transport: Transport, reps: RepResult[], median: RepResult): Row => ({
    workload: "a",
    transport,
    impl: "acpkit",
    reps,
    median,
    errors: [],
  });
  const verdict = (direct: number[], tapped: number[]): Target => {
    const d = direct.map((ms, i) => inRound(rep(true, ms, "pipe"), i + 1));
    const t = tapped.map((ms, i) => inRound(rep(true, ms, "tap"), i + 1));
    const out: Target[] = [];
    // The rows' medians picked so that their ratio alone would say the opposite.
    tapTarget([row("pipe", d, d[0]!), row("tap", t, t[1]!)], out);
    return out[0]!;
  };
  // Load changed between rounds: each round's tap took 8% longer than the direct pipe of that round.
  const steady = verdict([100, 200, 100, 200, 100], [108, 216, 108, 216, 108]);
  assert.equal(steady.status, "PASS");
  assert.match(steady.detail, /median of 5 rounds' ratios 1\.08x \(need < 1\.10x; middle half 1\.08x-1\.08x/);
  assert.match(steady.detail, /the rows' medians: 216\.0 ms vs 100\.0 ms \(acpkit\) = 2\.16x/);

  const slow = verdict([200, 100, 200, 100, 200], [224, 112, 224, 112, 224]);
  assert.equal(slow.status, "FAIL");
  assert.match(slow.detail, /median of 5 rounds' ratios 1\.12x/);
});

test("tap target: rounds pair by number, not by position; under 3 pairs the rows' medians decide", () => {
  const d = [1, 3, 4].map((round) => ({ ...rep(true, 100, "pipe"), round }));
  const t = [1, 2, 3, 4].map((round) => ({ ...rep(true, 100 + round, "tap"), round }));
  assert.deepEqual(
    pairedRatios(t, d).map((r) => r.toFixed(2)),
    ["1.01", "1.03", "1.04"],
  );
  assert.deepEqual(pairedRatios(t, [rep(true, 100, "pipe")]), [], "results without rounds pair with nothing");

  const out: Target[] = [];
  const direct = { ...rep(true, 100, "pipe"), round: 1 };
  const tapped = [1, 2].map((round) => ({ ...rep(true, 150, "tap"), round }));
  tapTarget(
    [
      { workload: "a", transport: "pipe", impl: "acpkit", reps: [direct], median: direct, errors: [] },
      { workload: "a", transport: "tap", impl: "acpkit", reps: tapped, median: tapped[0], errors: [] },
    ],
    out,
  );
  assert.equal(out[0]!.status, "FAIL");
  assert.match(out[0]!.detail, /150\.0 ms vs 100\.0 ms \(acpkit\) = 1\.50x \(need < 1\.10x; 1 paired rounds, too few/);
});

test("spread: median, quartiles (interpolated) and extremes", () => {
  assert.deepEqual(spread([3, 1, 2]), { median: 2, q1: 1.5, q3: 2.5, min: 1, max: 3 });
  assert.deepEqual(spread([4, 1, 3, 2]), { median: 2.5, q1: 1.75, q3: 3.25, min: 1, max: 4 });
  assert.deepEqual(spread([7]), { median: 7, q1: 7, q3: 7, min: 7, max: 7 });
});

test("tap target: N/A, saying why, when the direct pipe did not run or the tap has no result", () => {
  const tapped = rep(true, 105, "tap");
  const out: Target[] = [];
  tapTarget([{ workload: "a", transport: "tap", impl: "acpkit", reps: [tapped], median: tapped, errors: [] }], out);
  assert.deepEqual(out[0], {
    name: out[0]!.name,
    status: "N/A",
    detail: "pipe: not run",
  });

  const direct = rep(true, 100, "pipe");
  const failed: Target[] = [];
  tapTarget(
    [
      { workload: "a", transport: "pipe", impl: "acpkit", reps: [direct], median: direct, errors: [] },
      { workload: "a", transport: "tap", impl: "acpkit", reps: [], errors: ["Error: the tap exited 1\n    at x"] },
    ],
    failed,
  );
  assert.equal(failed[0]!.status, "N/A");
  assert.equal(failed[0]!.detail, "tap: Error: the tap exited 1");
});
