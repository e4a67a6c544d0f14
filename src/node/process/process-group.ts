/**
 * Process groups: signal a whole group, tell whether any live member is left, stop a group with a grace period,
 * and make sure no group we started outlives this process.
 *
 * A child spawned with `detached: true` leads its own process group (POSIX `setsid`), so `process.kill(-pid, sig)`
 * reaches it and everything it started that did not leave the group (the native child of an npm-wrapped agent,
 * a test server started by a terminal command). On Windows there are no process groups: the helpers fall back to
 * signalling the child alone.
 *
 * What leaves the group (`setsid`, a double fork) is reached through a `ProcessTree` (process-tree.ts); the orphan
 * guard (orphan-guard.ts) kills every tracked group and tree when this process exits or dies.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { trackedGroupIds, untrackGroup, untrackTree } from "./orphan-guard.js";
import { procStat } from "./proc-files.js";
import type { ProcessTree } from "./process-tree.js";

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

/** True while `pid` is a live process (a zombie, already dead but not yet reaped, counts as gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return procStat(pid)?.state !== "Z";
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
    const info = procStat(entry);
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
 * Stops the group led by `child`, and with `tree` everything it started (see `process-tree.ts`): SIGTERM to all,
 * then, if a live process is left after `graceMs`, SIGKILL to all (the cgroup at once where there is one). Resolves
 * once the leader has exited and no live process is left (or after a last SIGKILL and up to 2 s more).
 */
export async function terminateGroup(child: ChildProcess, graceMs: number, tree?: ProcessTree): Promise<ExitStatus> {
  const pid = child.pid;
  const exited = childExited(child);
  if (pid === undefined) return exited;
  const leaderDone = () => child.exitCode !== null || child.signalCode !== null;
  const allDone = () => leaderDone() && !(tree !== undefined ? tree.alive() : isGroupAlive(pid));
  const signal = (name: NodeJS.Signals) => {
    if (tree !== undefined) tree.signal(name);
    else signalGroup(pid, name);
    if (!posix) child.kill(name);
  };
  if (!allDone()) {
    signal("SIGTERM");
    if (!(await waitUntil(allDone, graceMs))) {
      signal("SIGKILL");
      // A process forking while it is killed may leave a child the first pass missed: kill again until none is left.
      await waitUntil(() => {
        if (allDone()) return true;
        signal("SIGKILL");
        return false;
      }, 2000);
    }
  }
  if (tree !== undefined) {
    tree.release();
    untrackTree(tree);
  }
  untrackGroup(pid);
  return exited;
}

export { setOrphanWatchdog, trackGroup, trackTree, untrackGroup, untrackTree } from "./orphan-guard.js";

/** The groups currently tracked (for tests and diagnostics). */
export function trackedGroups(): number[] {
  return trackedGroupIds();
}
