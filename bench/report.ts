/**
 * Turning repetition results into rows, ratios, target checks and a printed report.
 */
import type { RepResult, Transport } from "./harness.js";
import type { ImplName } from "./impls/types.js";
import { fmtMiB, fmtNum, fmtRate, fmtRatio, medianIndex, table } from "./stats.js";
import { errorOf, find } from "./row-lookup.js";
import { tapTarget } from "./tap-target.js";
import { WORKLOAD_TITLES, type WorkloadId } from "./workloads.js";

export interface Row {
  workload: WorkloadId;
  transport: Transport;
  impl: ImplName;
  /** The repetition with the median throughput (what the tables show). */
  median?: RepResult;
  reps: RepResult[];
  errors: string[];
}

export interface Ratio {
  workload: WorkloadId;
  transport: Transport;
  metric: string;
  value: number | undefined;
}

export interface Target {
  name: string;
  status: "PASS" | "FAIL" | "N/A" | "INFO";
  detail: string;
}

export function summarize(row: Row): void {
  const good = row.reps;
  if (good.length === 0) return;
  row.median = good[medianIndex(good.map((r) => r.throughput))];
}

/**
 * Agent-side growth over its idle baseline: lifetime maxRSS (covers every peak) minus the RSS after gc before the turn.
 */
export function agentGrowth(r: RepResult | undefined): number | undefined {
  if (!r?.agentRss) return undefined;
  const peak = Math.max(r.agentRss.maxRssBytes, r.agentRss.sampledPeakBytes);
  return peak - r.agentRss.baselineBytes;
}

/** The implementations the ratios and targets are about: acpkit, and acpkit-node when it ran. */
function candidates(rows: Row[]): ImplName[] {
  return (["acpkit", "acpkit-node"] as const).filter((c) => c === "acpkit" || rows.some((r) => r.impl === c));
}

export function ratios(rows: Row[]): Ratio[] {
  const out: Ratio[] = [];
  const keys = [...new Set(rows.map((r) => `${r.workload}:${r.transport}`))];
  const div = (a?: number, b?: number) => (a !== undefined && b !== undefined && b !== 0 ? a / b : undefined);
  for (const key of keys) {
    const [w, t] = key.split(":") as [WorkloadId, Transport];
    const official = find(rows, w, t, "official");
    const raw = find(rows, w, t, "raw");
    const push = (metric: string, value: number | undefined) => out.push({ workload: w, transport: t, metric, value });
    for (const c of candidates(rows)) {
      const mine = find(rows, w, t, c);
      push(`${c} / official throughput`, div(mine?.throughput, official?.throughput));
      push(`${c} / raw throughput`, div(mine?.throughput, raw?.throughput));
      if (w === "b") push(`${c} / raw median round trip`, div(mine?.latency?.medianUs, raw?.latency?.medianUs));
      if (w === "d" || w === "e")
        push(`${c} / official agent RSS growth`, div(agentGrowth(mine), agentGrowth(official)));
    }
    push("official / raw throughput", div(official?.throughput, raw?.throughput));
    if (w === "b") push("official / raw median round trip", div(official?.latency?.medianUs, raw?.latency?.medianUs));
  }
  return out;
}

function targetsFor(rows: Row[], me: ImplName, out: Target[]): void {
  const ratioTarget = (name: string, w: WorkloadId, num: ImplName, den: ImplName, min: number) => {
    const a = find(rows, w, "pipe", num);
    const b = find(rows, w, "pipe", den);
    if (!a || !b) {
      out.push({ name, status: "N/A", detail: `${!a ? num : den}: ${errorOf(rows, w, "pipe", !a ? num : den)}` });
      return;
    }
    const r = a.throughput / b.throughput;
    out.push({
      name,
      status: r >= min ? "PASS" : "FAIL",
      detail: `${a.unit === "MiB/s" ? fmtNum(a.throughput) : fmtRate(a.throughput)} vs ${a.unit === "MiB/s" ? fmtNum(b.throughput) : fmtRate(b.throughput)} ${a.unit} = ${fmtRatio(r)} (need >= ${min}x)`,
    });
  };
  ratioTarget(`(a) pipe: ${me} >= 3x official throughput`, "a", me, "official", 3);
  ratioTarget(`(c) pipe: ${me} >= 3x official throughput`, "c", me, "official", 3);
  // Issue 20: on the drop-in path as over acpkit's Node streams, within 10% of raw JSON; large messages at least as
  // fast as the official SDK.
  ratioTarget(`(a) pipe: ${me} >= 0.9x raw throughput`, "a", me, "raw", 0.9);
  ratioTarget(`(c) pipe: ${me} >= 0.9x raw throughput`, "c", me, "raw", 0.9);
  ratioTarget(`(d) pipe: ${me} >= official throughput`, "d", me, "official", 1);
  ratioTarget(`(d) pipe: ${me} >= 0.9x raw throughput`, "d", me, "raw", 0.9);

  const bA = find(rows, "b", "pipe", me);
  const bR = find(rows, "b", "pipe", "raw");
  if (bA?.latency && bR?.latency) {
    const r = bA.latency.medianUs / bR.latency.medianUs;
    out.push({
      name: `(b) pipe: ${me} median round trip <= 1.5x raw`,
      status: r <= 1.5 ? "PASS" : "FAIL",
      detail: `${fmtNum(bA.latency.medianUs)} µs vs ${fmtNum(bR.latency.medianUs)} µs = ${fmtRatio(r)} (need <= 1.5x)`,
    });
  } else {
    out.push({
      name: `(b) pipe: ${me} median round trip <= 1.5x raw`,
      status: "N/A",
      detail: `${!bA ? me : "raw"}: ${errorOf(rows, "b", "pipe", !bA ? me : "raw")}`,
    });
  }

  const dA = find(rows, "d", "pipe", me);
  const growth = agentGrowth(dA);
  if (dA && growth !== undefined && dA.messageBytes) {
    const r = growth / dA.messageBytes;
    out.push({
      name: `(d) pipe: ${me} receiving agent's peak RSS growth < 3x message size`,
      status: r < 3 ? "PASS" : "FAIL",
      detail:
        `peak ${fmtMiB(Math.max(dA.agentRss!.maxRssBytes, dA.agentRss!.sampledPeakBytes))} MiB - idle ` +
        `baseline ${fmtMiB(dA.agentRss!.baselineBytes)} MiB ` +
        `= ${fmtMiB(growth)} MiB for a ${fmtMiB(dA.messageBytes)} MiB message = ${fmtRatio(r)} (need < 3x). ` +
        (`Peak = max(maxRSS, 20 ms samples); baseline = RSS after gc, measured in the child just before the ` +
          `turn, subtracted.`),
    });
  } else {
    out.push({
      name: `(d) pipe: ${me} receiving agent's peak RSS growth < 3x message size`,
      status: "N/A",
      detail: `${me}: ${errorOf(rows, "d", "pipe", me)}`,
    });
  }
}

/**
 * Remote agents (issue 7): over each profile, acpkit's client + server at least 3x the official SDK's client +
 * server; acpkit over WebSocket at least 70% of acpkit over its stdio pipe, measured in the same run.
 */
function remoteTargets(rows: Row[], out: Target[]): void {
  const compare = (name: string, a: RepResult | undefined, b: RepResult | undefined, missing: string, min: number) => {
    if (!a || !b) return void out.push({ name, status: "N/A", detail: missing });
    const r = a.throughput / b.throughput;
    out.push({
      name,
      status: r >= min ? "PASS" : "FAIL",
      detail: `${fmtRate(a.throughput)} vs ${fmtRate(b.throughput)} msg/s = ${fmtRatio(r)} (need >= ${min}x)`,
    });
  };
  for (const t of ["websocket", "http"] as const) {
    if (!rows.some((r) => r.workload === "a" && r.transport === t)) continue;
    const mine = find(rows, "a", t, "acpkit");
    const official = find(rows, "a", t, "official");
    compare(
      `(a) ${t}: acpkit client + server >= 3x official client + server`,
      mine,
      official,
      `${!mine ? "acpkit" : "official"}: ${errorOf(rows, "a", t, !mine ? "acpkit" : "official")}`,
      3,
    );
  }
  if (rows.some((r) => r.workload === "a" && r.transport === "websocket")) {
    const ws = find(rows, "a", "websocket", "acpkit");
    const pipe = find(rows, "a", "pipe", "acpkit");
    compare(
      "(a) websocket: acpkit >= 70% of acpkit over stdio (pipe)",
      ws,
      pipe,
      `${!ws ? "websocket" : "pipe"}: ${errorOf(rows, "a", !ws ? "websocket" : "pipe", "acpkit")}`,
      0.7,
    );
  }
}

export function targets(rows: Row[]): Target[] {
  const out: Target[] = [];
  for (const c of candidates(rows)) targetsFor(rows, c, out);
  tapTarget(rows, out);
  remoteTargets(rows, out);
  for (const impl of ["raw", "official", ...candidates(rows)] as ImplName[]) {
    const e = find(rows, "e", "pipe", impl);
    const g = agentGrowth(e);
    out.push({
      name: `(e) pipe: ${impl} sender (agent) peak RSS without awaiting`,
      status: "INFO",
      detail: e?.agentRss
        ? `peak ${fmtMiB(Math.max(e.agentRss.maxRssBytes, e.agentRss.sampledPeakBytes))} MiB, growth over idle ` +
          `${fmtMiB(g)} MiB, ${fmtRate(e.throughput)} msg/s`
        : `${errorOf(rows, "e", "pipe", impl)}`,
    });
  }
  return out;
}

export function printReport(
  rows: Row[],
  rs: Ratio[],
  ts: Target[],
  log: (s: string) => void,
  /** Prints more tables after the workloads' (the cold start). */
  extra?: (log: (s: string) => void) => void,
): void {
  const workloads = [...new Set(rows.map((r) => r.workload))];
  for (const w of workloads) {
    log("");
    log(WORKLOAD_TITLES[w]);
    const unit = w === "d" ? "MiB/s" : w === "b" ? "rt/s" : "msg/s";
    const latencyLabel = w === "b" ? "rt" : "gap";
    const header = [
      "impl",
      "via",
      unit,
      `med ${latencyLabel} µs`,
      `p99 ${latencyLabel} µs`,
      "ms",
      "cpu ms c/a",
      "client Δ MiB",
      "agent idle",
      "agent peak",
      "agent Δ",
      "notes",
    ];
    const lines: string[][] = [];
    for (const row of rows.filter((r) => r.workload === w)) {
      const m = row.median;
      if (!m) {
        lines.push([
          row.impl,
          row.transport,
          "ERROR",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          "",
          (row.errors[0] ?? "no result").split("\n")[0]!.slice(0, 100),
        ]);
        continue;
      }
      const agentPeak = m.agentRss ? Math.max(m.agentRss.maxRssBytes, m.agentRss.sampledPeakBytes) : undefined;
      const notes: string[] = [];
      if (m.checks.note) notes.push(m.checks.note);
      if (w === "d" && m.messageBytes) notes.push(`Δ/msg ${fmtRatio((agentGrowth(m) ?? NaN) / m.messageBytes)}`);
      if (row.errors.length) notes.push(`${row.errors.length} rep(s) failed`);
      lines.push([
        row.impl,
        row.transport,
        w === "d" ? fmtNum(m.throughput) : fmtRate(m.throughput),
        fmtNum(m.latency?.medianUs, 2),
        fmtNum(m.latency?.p99Us, 1),
        fmtNum(m.ms, 0),
        m.cpu ? `${fmtNum(m.cpu.clientMs, 0)}/${fmtNum(m.cpu.agentMs, 0)}` : "",
        fmtMiB(m.clientRss.peakBytes - m.clientRss.baselineBytes),
        fmtMiB(m.agentRss?.baselineBytes),
        fmtMiB(agentPeak),
        fmtMiB(agentGrowth(m)),
        notes.join("; "),
      ]);
    }
    log(table(header, lines));
  }
  extra?.(log);
  log("");
  log("Ratios (median repetitions)");
  const shown = rs.filter((r) => r.value !== undefined);
  if (shown.length === 0) log("  (none: a ratio needs both of its rows)");
  else
    log(
      table(
        ["workload", "via", "metric", "value"],
        shown.map((r) => [r.workload, r.transport, r.metric, fmtRatio(r.value)]),
      ),
    );
  log("");
  log("Targets");
  for (const t of ts) log(`  ${t.status.padEnd(4)}  ${t.name}\n        ${t.detail}`);
}
