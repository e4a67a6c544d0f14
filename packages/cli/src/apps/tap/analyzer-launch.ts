/**
 * How the tap starts its analyzer so that checking never slows the conversation down: on Linux under SCHED_IDLE
 * (`chrt --idle 0`, util-linux), which runs it only on CPU time nothing else wants, and at nice 19 everywhere. With
 * niceness alone, the analyzer still took a share of a busy 2-core machine: the tap added 34% to a 200,000-chunk
 * stream instead of nothing (npm run bench, (a) through acp tap). Findings are then reported as soon as the CPU
 * allows, and the tap holds a bounded backlog of copies for it (./analyzer-feed.ts).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { setPriority } from "node:os";
import { delimiter, join } from "node:path";

/** The path of `chrt` on PATH, when there is one (Linux with util-linux). */
export function findChrt(path = process.env.PATH ?? ""): string | undefined {
  if (process.platform !== "linux") return undefined;
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "chrt");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The command line that runs `script` with Node at the lowest priority this machine offers (`chrt`: null for none). */
export function analyzerCommand(
  script: string,
  chrt: string | null = findChrt() ?? null,
): { command: string; args: string[] } {
  if (chrt) return { command: chrt, args: ["--idle", "0", process.execPath, script] };
  return { command: process.execPath, args: [script] };
}

/** Spawns the analyzer (stdin a pipe, stdout ignored, stderr shared) at the lowest priority. */
export function spawnAnalyzer(script: string): ChildProcess {
  const { command, args } = analyzerCommand(script);
  const analyzer = spawn(command, args, { stdio: ["pipe", "ignore", "inherit"] });
  analyzer.on("error", () => {});
  analyzer.stdin!.on("error", () => {});
  try {
    if (analyzer.pid !== undefined) setPriority(analyzer.pid, 19);
  } catch {
    // Not allowed here: it runs at the priority it got.
  }
  return analyzer;
}

/**
 * The conversation is over (or the tap is being stopped): the analyzer gets normal priority back to finish its
 * cassette and findings at once. Under SCHED_IDLE on a saturated machine it could get no CPU at all before the tap's
 * client stopped the tap (a client gives its agent a few seconds) and the cassette was lost. Leaving SCHED_IDLE and
 * nice 19 needs privilege (root, or CAP_SYS_NICE or an RLIMIT_NICE that allows it); without it nothing changes.
 */
export function analyzerAtFullSpeed(analyzer: ChildProcess, chrt: string | undefined = findChrt()): void {
  const pid = analyzer.pid;
  if (pid === undefined || analyzer.exitCode !== null || analyzer.signalCode !== null) return;
  if (chrt !== undefined) spawnSync(chrt, ["--other", "-p", "0", String(pid)], { stdio: "ignore", timeout: 2000 });
  try {
    setPriority(pid, 0);
  } catch {
    // Not allowed here: it stays at the priority it has.
  }
}
