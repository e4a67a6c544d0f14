/**
 * Process groups: signal a whole group, tell whether any live member is left, stop a group with a grace period,
 * and make sure no group we started outlives this process.
 *
 * A child spawned with `detached: true` leads its own process group (POSIX `setsid`), so `process.kill(-pid, sig)`
 * reaches it and everything it started that did not leave the group (the native child of an npm-wrapped agent,
 * a test server started by a terminal command). On Windows there are no process groups: the helpers fall back to
 * signalling the child alone.
 *
 * Orphan guard: every tracked group is SIGKILLed when this process exits normally (an `exit` hook), and, on POSIX,
 * by a small watchdog process (started on first use, one per process, unref'd) when this process dies any other
 * way, SIGKILL included: the watchdog holds the read end of a pipe from us, and the kernel closes it when we die.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Writable } from "node:stream";

const posix = process.platform !== "win32";

/** Sends `signal` to the process group led by `pid` (to the process alone on Windows). False when none is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(posix ? -pid : pid, signal);
    return true;
  } catch (error) {
    // EPERM: a member exists but belongs to someone else (cannot happen for a group we started, but say "alive").
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The state letter of a process on Linux (`Z` for a zombie), or undefined when unknown. */
function procState(pid: string): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** True while `pid` is a live process (a zombie, already dead but not yet reaped, counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return procState(String(pid))?.state !== "Z";
}

/**
 * True while the group led by `pid` has a live member. Zombies do not count: on Linux, where a container's
 * PID 1 may never reap orphans, members are read from /proc.
 */
export function isGroupAlive(pid: number): boolean {
  if (!signalGroup(pid, 0)) return false;
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    const info = procState(entry);
    if (info !== undefined && info.pgrp === pid && info.state !== "Z") return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `done()` or `ms` elapsed; resolves with the last `done()`. */
export async function waitUntil(done: () => boolean, ms: number, everyMs = 10): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(everyMs, Math.max(1, deadline - Date.now())));
    everyMs = Math.min(everyMs * 2, 50);
  }
}

/** The exit of a child: its code, or the signal that ended it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves when `child` has exited (at once if it already has). Never rejects. */
export function childExited(child: ChildProcess): Promise<ExitStatus> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      child.off("error", onError);
      resolve({ code, signal });
    };
    // A spawn failure emits `error` and no `exit`.
    const onError = () => {
      if (child.pid === undefined) {
        child.off("exit", onExit);
        resolve({ code: null, signal: null });
      }
    };
    child.once("exit", onExit);
    child.on("error", onError);
  });
}

/**
 * Stops the group led by `child`: SIGTERM to the group, then, if a live member is left after `graceMs`, SIGKILL
 * to the group. Resolves once the leader has exited and no live member is left (or after a last SIGKILL).
 */
export async function terminateGroup(child: ChildProcess, graceMs: number): Promise<ExitStatus> {
  const pid = child.pid;
  const exited = childExited(child);
  if (pid === undefined) return exited;
  const leaderDone = () => child.exitCode !== null || child.signalCode !== null;
  const allDone = () => leaderDone() && !isGroupAlive(pid);
  if (!allDone()) {
    signalGroup(pid, "SIGTERM");
    if (!posix) child.kill("SIGTERM");
    if (!(await waitUntil(allDone, graceMs))) {
      signalGroup(pid, "SIGKILL");
      if (!posix) child.kill("SIGKILL");
      await waitUntil(allDone, 2000);
    }
  }
  untrackGroup(pid);
  return exited;
}

// ---- The orphan guard: an exit hook and a watchdog process. ----

const tracked = new Set<number>();
let exitHookInstalled = false;
let watchdog: { child: ChildProcess; input: Writable } | undefined;
let watchdogEnabled = posix && process.env.ACPKIT_NO_WATCHDOG !== "1";

/**
 * The watchdog: reads "+pid" / "-pid" lines on stdin; when stdin ends (its parent died or let go), SIGKILLs the
 * groups still registered and exits. It ignores the terminal's SIGINT/SIGHUP so it outlives a Ctrl-C that
 * killed its parent, and lives in its own session.
 */
const WATCHDOG_SCRIPT = `
const groups = new Set(); let rest = "";
for (const s of ["SIGINT", "SIGHUP", "SIGTERM", "SIGQUIT"]) process.on(s, () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (rest + chunk).split("\\n"); rest = lines.pop();
  for (const line of lines) { const pid = Number(line.slice(1)); if (line[0] === "+") groups.add(pid); else groups.delete(pid); }
});
const done = () => { for (const pid of groups) { try { process.kill(-pid, "SIGKILL"); } catch {} } process.exit(0); };
process.stdin.on("end", done); process.stdin.on("error", done); process.stdin.on("close", done);
`;

/** Turns the watchdog process off (or on) for groups tracked from now on; the exit hook stays. */
export function setOrphanWatchdog(enabled: boolean): void {
  watchdogEnabled = posix && enabled;
}

function watchdogInput(): Writable | undefined {
  if (!watchdogEnabled) return undefined;
  if (watchdog && !watchdog.input.destroyed) return watchdog.input;
  try {
    const child = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: process.env.PATH ?? "", ELECTRON_RUN_AS_NODE: "1" },
    });
    const input = child.stdin!;
    child.on("error", () => {
      watchdog = undefined;
    });
    input.on("error", () => {});
    child.unref();
    (input as unknown as { unref?: () => void }).unref?.();
    watchdog = { child, input };
    return input;
  } catch {
    return undefined;
  }
}

function killTrackedNow(): void {
  for (const pid of tracked) signalGroup(pid, "SIGKILL");
  tracked.clear();
}

/**
 * Registers the group led by `pid` to be SIGKILLed if this process exits (normally, by the exit hook; or any
 * other way, by the watchdog). `terminateGroup` unregisters it; call `untrackGroup` after a group ended otherwise
 * (a group id of a group that ended may, in theory, be reused later by an unrelated group).
 *
 * Signals to this process (SIGINT, SIGTERM) are left alone: a library does not change how its host dies. Such a
 * death is covered by the watchdog, not by the exit hook.
 */
export function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killTrackedNow);
  }
  tracked.add(pid);
  watchdogInput()?.write(`+${pid}\n`);
}

/** Forgets the group led by `pid` (it ended, or was stopped). */
export function untrackGroup(pid: number): void {
  if (!tracked.delete(pid)) return;
  if (watchdog && !watchdog.input.destroyed) watchdog.input.write(`-${pid}\n`);
}

/** The groups currently tracked (for tests and diagnostics). */
export function trackedGroups(): number[] {
  return [...tracked];
}
