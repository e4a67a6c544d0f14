/**
 * The tap's targets: `acp tap` in front of the agent adds under 10% to the time of the (a) stream, and passes every
 * chunk through in order. Checked twice: tap vs pipe on the machine as it is, and tap+load vs pipe+load while another
 * process keeps one core busy.
 *
 * The verdict is the median of the rounds' ratios. In each round the direct pipe and the tap run back to back, so
 * whatever else the machine does at that moment weighs on both; one round's ratio still moves by ±15% on a busy
 * 2-core machine, hence the median over many rounds (BENCH_TAP_REPS). With fewer than 3 rounds that have both, the
 * verdict is the ratio of the two rows' medians. Both figures are printed.
 */
import type { RepResult, Transport } from "./harness.js";
import type { Row, Target } from "./report.js";
import { errorOf, rowOf } from "./row-lookup.js";
import { fmtNum, fmtRatio } from "./stats.js";

/** Below this many paired rounds the ratio of the rows' medians decides. */
const MIN_PAIRS = 3;
const LIMIT = 1.1;

export function tapTarget(rows: Row[], out: Target[]): void {
  tapPairTarget(
    rows,
    out,
    "tap",
    "pipe",
    "(a) pipe through acp tap: added time < 10% of the direct pipe, nothing reordered",
  );
  tapPairTarget(
    rows,
    out,
    "tap+load",
    "pipe+load",
    "(a) pipe through acp tap beside a CPU load: added time < 10% of the direct pipe beside the same load, nothing reordered",
  );
  catReference(rows, out);
}

/**
 * What any process in the path costs: (a) through `cat` in the same rounds as the tap and its direct pipe, as a
 * paired median against each (information, not a target).
 */
function catReference(rows: Row[], out: Target[]): void {
  const cat = rows.find((r) => r.workload === "a" && r.transport === "cat");
  const tapped = rows.find((r) => r.workload === "a" && r.transport === "tap");
  const direct = cat ? rowOf(rows, "a", "pipe", cat.impl) : undefined;
  if (!cat || !direct) return;
  const name = "(a) pipe through cat, the plainest forwarder: what any process in the path costs here";
  const broken = cat.reps.filter((r) => !r.checks.ok || r.checks.inOrder !== true);
  const ofDirect = pairedRatios(cat.reps, direct.reps);
  if (broken.length > 0 || ofDirect.length < MIN_PAIRS) {
    out.push({
      name,
      status: "N/A",
      detail:
        broken.length > 0
          ? `${broken.length} of ${cat.reps.length} reps through cat did not deliver every chunk in order: ` +
            (broken[0]!.checks.note ?? "checks failed")
          : `${ofDirect.length} paired rounds, too few for their median (BENCH_TAP_REPS)`,
    });
    return;
  }
  const tapOfCat = tapped ? pairedRatios(tapped.reps, cat.reps) : [];
  const s = spread(ofDirect);
  out.push({
    name,
    status: "INFO",
    detail:
      `median of ${ofDirect.length} rounds' ratios to the direct pipe ${fmtRatio(s.median)} (middle half ` +
      `${fmtRatio(s.q1)}-${fmtRatio(s.q3)})` +
      (tapOfCat.length >= MIN_PAIRS ? `; acp tap / cat, same rounds: ${fmtRatio(spread(tapOfCat).median)}` : ""),
  });
}

/** tap ms / direct ms of each round both were measured in, in round order. */
export function pairedRatios(tapped: readonly RepResult[], direct: readonly RepResult[]): number[] {
  const directByRound = new Map(direct.filter((r) => r.round !== undefined).map((r) => [r.round, r]));
  const ratios: number[] = [];
  for (const rep of [...tapped].sort((a, b) => (a.round ?? 0) - (b.round ?? 0))) {
    const pair = rep.round === undefined ? undefined : directByRound.get(rep.round);
    if (pair !== undefined && pair.ms > 0) ratios.push(rep.ms / pair.ms);
  }
  return ratios;
}

/** The median, and the quartiles and extremes, of `values` (not empty). */
export function spread(values: readonly number[]): {
  median: number;
  q1: number;
  q3: number;
  min: number;
  max: number;
} {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => {
    const position = (sorted.length - 1) * q;
    const low = Math.floor(position);
    const high = Math.ceil(position);
    return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
  };
  return { median: at(0.5), q1: at(0.25), q3: at(0.75), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

function tapPairTarget(rows: Row[], out: Target[], via: Transport, base: Transport, name: string): void {
  const tapped = rows.find((r) => r.workload === "a" && r.transport === via);
  if (!tapped) return;
  const broken = tapped.reps.filter((r) => !r.checks.ok || r.checks.inOrder !== true);
  if (broken.length > 0) {
    const why =
      broken[0]!.checks.note ?? (broken[0]!.checks.inOrder === undefined ? "chunk order not checked" : "checks failed");
    out.push({
      name,
      status: "FAIL",
      detail:
        `${broken.length} of ${tapped.reps.length} reps through the tap (${tapped.impl}) did not deliver every ` +
        `chunk in order: ${why}`,
    });
    return;
  }
  const directRow = rowOf(rows, "a", base, tapped.impl);
  const tap = tapped.median;
  const direct = directRow?.median;
  if (!tap || !direct) {
    out.push({
      name,
      status: "N/A",
      detail: `${!tap ? via : base}: ${errorOf(rows, "a", !tap ? via : base, tapped.impl)}`,
    });
    return;
  }
  const ofMedians = tap.ms / direct.ms;
  const medians = `${fmtNum(tap.ms)} ms vs ${fmtNum(direct.ms)} ms (${tapped.impl}) = ${fmtRatio(ofMedians)}`;
  const pairs = pairedRatios(tapped.reps, directRow!.reps);
  let verdict: number;
  let figures: string;
  if (pairs.length >= MIN_PAIRS) {
    const s = spread(pairs);
    verdict = s.median;
    figures =
      `median of ${pairs.length} rounds' ratios ${fmtRatio(s.median)} (need < ${fmtRatio(LIMIT)}; middle half ` +
      `${fmtRatio(s.q1)}-${fmtRatio(s.q3)}, all ${fmtRatio(s.min)}-${fmtRatio(s.max)}); the rows' medians: ${medians}`;
  } else {
    verdict = ofMedians;
    figures = `${medians} (need < ${fmtRatio(LIMIT)}; ${pairs.length} paired rounds, too few for their median)`;
  }
  out.push({
    name,
    status: verdict < LIMIT ? "PASS" : "FAIL",
    detail:
      `${figures}; in each of ${tapped.reps.length} reps the client received all ${fmtNum(tap.messages, 0)} ` +
      `chunks, each carrying its index, in order, and the tap's analyzer checked and recorded at least ` +
      `${fmtNum(Math.min(...tapped.reps.map((rep) => rep.checks.tapFrames ?? 0)), 0)} frames of the connection`,
  });
}
