/**
 * Process trees: everything a spawned process starts, even what leaves its process group (`setsid`, a double fork,
 * `nohup`, a daemon), so that stopping the tree leaves nothing behind. Three means, combined:
 * 1. the process group the child leads (`detached: true`): reaches every member that did not call `setsid`;
 * 2. an environment tag, `ACPKIT_TREE=<owner>-<n>`, inherited by every descendant that keeps its environment;
 *    on Linux the tree's live members are found by reading `/proc/<pid>/environ` (processes of our user);
 * 3. a cgroup v2 per tree where this process may create one (see `cgroup.ts`): it holds every descendant, even one
 *    that clears its environment, and `cgroup.kill` ends them all at once.
 *
 * Where it stops: without a writable cgroup, a descendant that both leaves the group and clears or replaces its
 * environment (`setsid env -i cmd`) is not found; on macOS and other systems without /proc, only the process group
 * is reached (no tag sweep); on Windows only the child itself. A `PR_SET_CHILD_SUBREAPER` reaper would need native
 * code (Node has no `prctl`), and a reaper alone would still not know which orphans to kill: the tag and the cgroup
 * do both without privileges or a compiler.
 */
import { readdirSync } from "node:fs";
import { cgroupBase, TreeCgroup } from "./cgroup.js";
import { installExitHook } from "./orphan-guard.js";
import { procEnviron, procStat } from "./proc-files.js";
import { OWNER_ID, TREE_ENV } from "./tree-tag.js";

export { OWNER_ID, TREE_ENV } from "./tree-tag.js";

const posix = process.platform !== "win32";
const linux = process.platform === "linux";
let counter = 0;
let cgroupsEnabled = true;

/** Turns the use of cgroups off (or on) for trees made from now on (tests; or to keep a host's cgroups untouched). */
export function setCgroupContainment(enabled: boolean): void {
  cgroupsEnabled = enabled;
}

/**
 * Whether a process's initial environment holds `entry` ("NAME=value", matched whole; a prefix when it ends in "-").
 */
function environHas(pid: string, entry: Buffer): boolean {
  const environ = procEnviron(pid);
  if (environ === undefined) return false;
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    const end = at + entry.length;
    if (
      (at === 0 || environ[at - 1] === 0) &&
      (end === environ.length || environ[end] === 0 || entry[entry.length - 1] === 0x2d)
    )
      return true;
  }
  return false;
}

/**
 * The live (non-zombie) processes, other than this one, whose process group is `group` or whose environment holds
 * `entry` (a whole `NAME=value`, or a prefix ending in "-"). Only processes started at or after `since` (clock ticks
 * after boot, as in /proc/<pid>/stat) have their environment read: a tree's processes are never older than its
 * leader. Linux only; elsewhere an empty list.
 */
export function findProcesses(group: number | undefined, entry: string, since = 0): number[] {
  if (!linux) return [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const tag = Buffer.from(entry, "latin1");
  const found: number[] = [];
  for (const name of names) {
    if (name.charCodeAt(0) > 57 || name.charCodeAt(0) < 48) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const stat = procStat(name);
    if (stat === undefined || stat.state === "Z") continue;
    if ((group !== undefined && stat.pgrp === group) || (stat.start >= since && environHas(name, tag))) found.push(pid);
  }
  return found;
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already, or not ours
  }
}

/** One tree: make it before spawning, add `env` to the child's environment, `adopt` the child once spawned. */
export class ProcessTree {
  /** The tag value. */
  readonly id = `${OWNER_ID}-${++counter}`;
  #cgroup: TreeCgroup | undefined;
  #leader: number | undefined;
  /** The leader's start time: no process of the tree is older. */
  #since = 0;

  constructor() {
    installExitHook();
    const base = cgroupsEnabled ? cgroupBase(OWNER_ID) : undefined;
    this.#cgroup = base === undefined ? undefined : TreeCgroup.create(base, `t${counter}`);
  }

  /** The tree's cgroup, when cgroups can be used here. */
  get cgroup(): TreeCgroup | undefined {
    return this.#cgroup;
  }

  /** The variable to add to the child's environment. */
  get env(): Record<string, string> {
    return { [TREE_ENV]: this.id };
  }

  /** How this tree is contained: "cgroup", "environment" (Linux /proc), or "group" (the process group alone). */
  get means(): "cgroup" | "environment" | "group" {
    return this.cgroup !== undefined ? "cgroup" : linux ? "environment" : "group";
  }

  /**
   * Takes the spawned child (its pid is also its process group id) as the tree's leader and moves it into the cgroup
   * (best effort: `spawnInTree` has the child move itself in before it runs anything, which no fork can outrun).
   */
  adopt(pid: number): void {
    this.#leader = pid;
    this.#since = (linux ? procStat(pid)?.start : undefined) ?? 0;
    this.#cgroup?.adopt(pid);
  }

  get leader(): number | undefined {
    return this.#leader;
  }

  /** The live processes of the tree (group members, tagged processes, cgroup members). */
  members(): number[] {
    const found = new Set(findProcesses(posix ? this.#leader : undefined, `${TREE_ENV}=${this.id}`, this.#since));
    for (const pid of this.cgroup?.members() ?? []) found.add(pid);
    if (!linux && this.#leader !== undefined && groupAlive(this.#leader)) found.add(this.#leader);
    return [...found];
  }

  /** True while a process of the tree lives (a cheap cgroup check first; the /proc scan once the cgroup is empty). */
  alive(): boolean {
    if (this.#cgroup !== undefined && !this.#cgroup.empty()) return true;
    return this.members().length > 0;
  }

  /** Signals the whole tree: the group, every member found, and (for SIGKILL) the cgroup at once. */
  signal(signal: NodeJS.Signals): void {
    if (this.#leader !== undefined) {
      if (posix) kill(-this.#leader, signal);
      else kill(this.#leader, signal);
    }
    if (signal === "SIGKILL") this.#cgroup?.kill();
    // While the cgroup holds the tree, its member list is enough (a /proc scan costs ~10 ms on a busy machine); once
    // it is empty, the scan finds what escaped before the child was moved into it.
    const cgroupMembers = this.#cgroup?.members() ?? [];
    for (const pid of cgroupMembers.length > 0 ? cgroupMembers : this.members()) kill(pid, signal);
  }

  /** Removes the cgroup once the tree is empty (call after the tree ended); false while processes are left in it. */
  release(): boolean {
    if (this.#cgroup === undefined) return true;
    if (!this.#cgroup.remove()) return false;
    this.#cgroup = undefined;
    return true;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(posix ? -pid : pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
