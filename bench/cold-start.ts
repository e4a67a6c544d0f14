/**
 * Cold start: a whole `node` process that imports a library's root entry and exits, against the same process that
 * imports nothing ("bare"). What a CLI that speaks ACP, or an editor starting an agent, pays before its first
 * message. Rounds are interleaved (bare, official, acpkit, bare, ...) so that all three see the same load; each
 * process reports its own CPU time (user + system) as its last act, and its wall time runs from spawn to exit.
 */
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { fmtNum, median, table } from "./stats.js";
import type { Target } from "./report.js";

export type ColdCaseName = "bare" | "official" | "acpkit";

export interface ColdCase {
  name: ColdCaseName;
  /** What the process imports (empty for bare). */
  specifier: string;
}

export interface ColdResult {
  name: ColdCaseName;
  specifier: string;
  wallMs: number[];
  cpuMs: number[];
  errors: string[];
}

/** The three cases; acpkit as installed (`@acpkit/sdk`), or `BENCH_ACPKIT_ENTRY` when it is set. */
export function coldCases(acpkitEntry: string | undefined): ColdCase[] {
  return [
    { name: "bare", specifier: "" },
    { name: "official", specifier: "@agentclientprotocol/sdk" },
    {
      name: "acpkit",
      specifier:
        acpkitEntry === undefined
          ? "@acpkit/sdk"
          : acpkitEntry.startsWith("file:")
            ? acpkitEntry
            : pathToFileURL(acpkitEntry).href,
    },
  ];
}

/** Runs one process for `c` in `cwd`; resolves with its wall and CPU time. */
function once(c: ColdCase, cwd: string): Promise<{ wallMs: number; cpuMs: number }> {
  const load = c.specifier === "" ? "" : `await import(${JSON.stringify(c.specifier)});`;
  const code = `${load}const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000));`;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (err += text));
    child.once("error", reject);
    child.once("exit", (code) => {
      const wallMs = performance.now() - started;
      const cpuMs = Number(out);
      if (code !== 0 || !Number.isFinite(cpuMs)) {
        reject(new Error(`importing ${c.specifier || "nothing"} failed (exit ${code}): ${err.trim().split("\n")[0]}`));
      } else resolve({ wallMs, cpuMs });
    });
  });
}

/** `rounds` interleaved rounds of every case (after one unmeasured round that warms the file cache). */
export async function runColdStart(
  cases: ColdCase[],
  rounds: number,
  cwd: string,
  progress: (line: string) => void,
): Promise<ColdResult[]> {
  const results = cases.map((c): ColdResult => ({ ...c, wallMs: [], cpuMs: [], errors: [] }));
  for (let round = 0; round <= rounds; round++) {
    for (const [i, c] of cases.entries()) {
      const result = results[i]!;
      if (result.errors.length > 0) continue;
      try {
        const { wallMs, cpuMs } = await once(c, cwd);
        if (round === 0) continue;
        result.wallMs.push(wallMs);
        result.cpuMs.push(cpuMs);
      } catch (error) {
        result.errors.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (round > 0 && (round % 5 === 0 || round === rounds)) progress(`[cold start] ${round}/${rounds} rounds`);
  }
  return results;
}

const min = (values: number[]): number => (values.length === 0 ? Number.NaN : Math.min(...values));

/** The cold-start table. */
export function printColdStart(results: ColdResult[], log: (line: string) => void): void {
  const bare = results.find((r) => r.name === "bare");
  const lines = results.map((r) => {
    if (r.errors.length > 0 || r.wallMs.length === 0)
      return [r.name, r.specifier, "ERROR", "", "", "", "", r.errors[0] ?? ""];
    const added = bare && r !== bare ? `+${fmtNum(median(r.wallMs) - median(bare.wallMs))}` : "";
    const addedMin = bare && r !== bare ? `+${fmtNum(min(r.wallMs) - min(bare.wallMs))}` : "";
    return [
      r.name,
      r.specifier || "(nothing)",
      fmtNum(median(r.wallMs)),
      fmtNum(min(r.wallMs)),
      fmtNum(median(r.cpuMs)),
      added,
      addedMin,
      `${r.wallMs.length} runs`,
    ];
  });
  log("");
  log("(s) cold start: a whole node process importing the root entry, then exiting (ms)");
  log(
    table(
      ["case", "imports", "median wall", "best wall", "median cpu", "added (median)", "added (best)", "notes"],
      lines,
    ),
  );
}

/**
 * Targets: acpkit's root entry adds at most 30 ms to a bare node process (compared on each case's fastest run, the
 * least disturbed on a shared machine) and less than the official SDK's root entry adds (medians).
 */
export function coldStartTargets(results: ColdResult[], out: Target[]): void {
  const get = (name: ColdCaseName) =>
    results.find((r) => r.name === name && r.wallMs.length > 0 && r.errors.length === 0);
  const bare = get("bare");
  const acpkit = get("acpkit");
  const official = get("official");
  const missing = (name: ColdCaseName) => results.find((r) => r.name === name)?.errors[0] ?? "not run";
  const absolute = "(s) cold start: acpkit's root entry adds <= 30 ms to a bare node process";
  if (!bare || !acpkit) {
    out.push({
      name: absolute,
      status: "N/A",
      detail: `${!bare ? "bare" : "acpkit"}: ${missing(!bare ? "bare" : "acpkit")}`,
    });
  } else {
    const added = min(acpkit.wallMs) - min(bare.wallMs);
    out.push({
      name: absolute,
      status: added <= 30 ? "PASS" : "FAIL",
      detail:
        `fastest of ${acpkit.wallMs.length}: ${fmtNum(min(acpkit.wallMs))} ms vs bare node ${fmtNum(min(bare.wallMs))} ms = +${fmtNum(added)} ms (need <= +30 ms); ` +
        `medians ${fmtNum(median(acpkit.wallMs))} vs ${fmtNum(median(bare.wallMs))} ms, CPU ${fmtNum(median(acpkit.cpuMs))} vs ${fmtNum(median(bare.cpuMs))} ms`,
    });
  }
  const relative = "(s) cold start: acpkit's root entry adds less than the official SDK's";
  if (!bare || !acpkit || !official) {
    const absent = !bare ? "bare" : !acpkit ? "acpkit" : "official";
    out.push({ name: relative, status: "N/A", detail: `${absent}: ${missing(absent)}` });
  } else {
    const mine = median(acpkit.wallMs) - median(bare.wallMs);
    const theirs = median(official.wallMs) - median(bare.wallMs);
    out.push({
      name: relative,
      status: mine < theirs ? "PASS" : "FAIL",
      detail: `median added wall time +${fmtNum(mine)} ms vs +${fmtNum(theirs)} ms = ${fmtNum(mine / theirs, 2)}x (need < 1x); added CPU +${fmtNum(median(acpkit.cpuMs) - median(bare.cpuMs))} vs +${fmtNum(median(official.cpuMs) - median(bare.cpuMs))} ms`,
    });
  }
}
