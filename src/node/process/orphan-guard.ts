/**
 * The orphan guard: no process tree we started outlives this process.
 * - On a normal exit, an `exit` hook SIGKILLs every tracked tree (its group, its tagged processes, its cgroup).
 * - On any other death (SIGKILL included), on POSIX, a small watchdog process does the same: it holds the read end
 *   of a pipe from us, and the kernel closes it when we die. It then kills the tracked groups, every process tagged
 *   with our owner id (`ACPKIT_TREE=<owner>-...`, found in /proc on Linux), and every cgroup under our owner
 *   directory, twice (to catch a fork racing the first pass), and removes those cgroups.
 * The watchdog is started on first use (one per process, unref'd), ignores the terminal's SIGINT/SIGHUP so it
 * outlives a Ctrl-C that killed its parent, lives in its own session, and carries no tag itself.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { cgroupBase, removeCgroupBase } from "./cgroup.js";
import type { ProcessTree } from "./process-tree.js";
import { OWNER_ID, TREE_ENV } from "./tree-tag.js";

const posix = process.platform !== "win32";

const WATCHDOG_SCRIPT = `
const fs = require("node:fs");
const [owner, tagName] = process.argv.slice(1);
const groups = new Set(); let cgroupDir; let rest = "";
for (const s of ["SIGINT", "SIGHUP", "SIGTERM", "SIGQUIT"]) process.on(s, () => {});
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (rest + chunk).split("\\n"); rest = lines.pop();
  for (const line of lines) {
    if (line[0] === "c") cgroupDir = line.slice(1);
    else { const pid = Number(line.slice(1)); if (line[0] === "+") groups.add(pid); else groups.delete(pid); }
  }
});
const tag = Buffer.from(tagName + "=" + owner + "-");
const sweep = () => {
  for (const pid of groups) { try { process.kill(-pid, "SIGKILL"); } catch {} }
  if (cgroupDir) { try { for (const e of fs.readdirSync(cgroupDir)) { try { fs.writeFileSync(cgroupDir + "/" + e + "/cgroup.kill", "1"); } catch {} } } catch {} }
  let names = []; try { names = fs.readdirSync("/proc"); } catch {}
  for (const name of names) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
    let env; try { env = fs.readFileSync("/proc/" + name + "/environ"); } catch { continue; }
    const at = env.indexOf(tag);
    if (at === 0 || (at > 0 && env[at - 1] === 0)) { try { process.kill(Number(name), "SIGKILL"); } catch {} }
  }
};
const removeCgroups = () => {
  if (!cgroupDir) return true;
  try { for (const e of fs.readdirSync(cgroupDir)) { try { fs.rmdirSync(cgroupDir + "/" + e); } catch {} } fs.rmdirSync(cgroupDir); return true; } catch (e) { return e.code === "ENOENT"; }
};
const done = () => {
  sweep();
  let tries = 0;
  const again = () => {
    sweep();
    if (removeCgroups() || ++tries >= 40) process.exit(0);
    setTimeout(again, 50);
  };
  setTimeout(again, 20);
};
process.stdin.on("end", done); process.stdin.on("error", done); process.stdin.on("close", done);
`;

const trackedGroups = new Set<number>();
const trackedTrees = new Set<ProcessTree>();
let exitHookInstalled = false;
let watchdog: { child: ChildProcess; input: Writable; cgroupSent: boolean } | undefined;
let watchdogEnabled = posix && process.env.ACPKIT_NO_WATCHDOG !== "1";

/** Turns the watchdog process off (or on) for groups tracked from now on; the exit hook stays. */
export function setOrphanWatchdog(enabled: boolean): void {
  watchdogEnabled = posix && enabled;
}

function watchdogInput(): Writable | undefined {
  if (!watchdogEnabled) return undefined;
  if (watchdog === undefined || watchdog.input.destroyed) {
    try {
      const child = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT, OWNER_ID, TREE_ENV], {
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
      watchdog = { child, input, cgroupSent: false };
    } catch {
      return undefined;
    }
  }
  if (!watchdog.cgroupSent) {
    const dir = cgroupBase(OWNER_ID);
    if (dir !== undefined) {
      watchdog.input.write(`c${dir}\n`);
      watchdog.cgroupSent = true;
    }
  }
  return watchdog.input;
}

function killTrackedNow(): void {
  for (const pid of trackedGroups) {
    try {
      process.kill(posix ? -pid : pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  trackedGroups.clear();
  for (const tree of trackedTrees) tree.signal("SIGKILL");
  // Let the killed trees empty (a few ms) so their cgroups can be removed; an exit hook can only wait synchronously.
  let pending = [...trackedTrees];
  const deadline = Date.now() + 500;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  while (pending.length > 0 && Date.now() < deadline) {
    pending = pending.filter((tree) => !tree.release());
    if (pending.length > 0) Atomics.wait(tick, 0, 0, 5);
  }
  trackedTrees.clear();
  removeCgroupBase();
}

/** Installs the exit hook that kills every tracked group and tree (once). */
export function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", killTrackedNow);
}

/**
 * Registers the group led by `pid` to be SIGKILLed if this process exits (normally, by the exit hook; or any
 * other way, by the watchdog). Signals to this process (SIGINT, SIGTERM) are left alone: a library does not change
 * how its host dies; such a death is covered by the watchdog.
 */
export function trackGroup(pid: number): void {
  installExitHook();
  trackedGroups.add(pid);
  watchdogInput()?.write(`+${pid}\n`);
}

/** Forgets the group led by `pid` (it ended, or was stopped). */
export function untrackGroup(pid: number): void {
  if (!trackedGroups.delete(pid)) return;
  if (watchdog && !watchdog.input.destroyed) watchdog.input.write(`-${pid}\n`);
}

/** Registers a whole tree (its group, tagged processes and cgroup) to be killed if this process exits. */
export function trackTree(tree: ProcessTree): void {
  trackedTrees.add(tree);
  if (tree.leader !== undefined) trackGroup(tree.leader);
  else installExitHook();
}

/** Forgets a tree (it was stopped and nothing of it is left). */
export function untrackTree(tree: ProcessTree): void {
  trackedTrees.delete(tree);
  if (tree.leader !== undefined) untrackGroup(tree.leader);
}

/** The groups currently tracked (for tests and diagnostics). */
export function trackedGroupIds(): number[] {
  return [...trackedGroups];
}
