/**
 * cgroup v2 containers for process trees, where the hierarchy is mounted and this process may write to its own
 * cgroup (typically as root, or inside a delegated subtree): every process of a tree stays in its cgroup whatever
 * it does (`setsid`, double fork, a cleared environment), and `cgroup.kill` ends them all at once.
 *
 * Layout: `<our cgroup>/acpkit-<owner>/<tree>`; the owner directory is made on first use and removed on exit.
 * Everything here is best effort and synchronous (a few small writes to a kernel file system): `available()` is
 * false when anything is missing or refused, and callers then rely on the other containment means.
 * @see https://docs.kernel.org/admin-guide/cgroup-v2.html
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Where the cgroup v2 hierarchy is mounted, and this process's cgroup in it; undefined when there is none. */
function ownCgroup(): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const mount = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .map((line) => line.split(" "))
      .find((fields) => fields[fields.indexOf("-") + 1] === "cgroup2")?.[4];
    const own = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((line) => line.startsWith("0::"))
      ?.slice(3);
    if (mount === undefined || own === undefined) return undefined;
    return path.join(mount, own);
  } catch {
    return undefined;
  }
}

let base: string | null | undefined = null;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Kills and removes what a dead owner left: `acpkit-<pid>-<owner>` directories whose process is gone (killed so
 * hard that neither its exit hook nor its watchdog ran). Directories of live processes are never touched.
 */
function sweepStale(own: string): void {
  let names: string[];
  try {
    names = readdirSync(own);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^acpkit-(\d+)-[0-9a-f]+$/.exec(name);
    if (match === null || Number(match[1]) === process.pid || pidAlive(Number(match[1]))) continue;
    const dir = path.join(own, name);
    for (const tree of treeCgroups(dir)) {
      try {
        writeFileSync(path.join(tree, "cgroup.kill"), "1");
        rmdirSync(tree);
      } catch {
        // still emptying: the next sweep removes it
      }
    }
    try {
      rmdirSync(dir);
    } catch {
      // idem
    }
  }
}

/** The owner directory for this process's trees, made on first call; undefined when cgroups cannot be used. */
export function cgroupBase(owner: string): string | undefined {
  if (base !== null) return base;
  base = undefined;
  if (process.env.ACPKIT_NO_CGROUP === "1") return undefined;
  const own = ownCgroup();
  if (own === undefined || !existsSync(path.join(own, "cgroup.procs"))) return undefined;
  const dir = path.join(own, `acpkit-${process.pid}-${owner}`);
  try {
    mkdirSync(dir);
    // Probe: a tree directory must be creatable and removable, with the kill switch (Linux 5.14+).
    const probe = path.join(dir, "probe");
    mkdirSync(probe);
    const killable = existsSync(path.join(probe, "cgroup.kill"));
    rmdirSync(probe);
    if (!killable) {
      rmdirSync(dir);
      return undefined;
    }
  } catch {
    return undefined;
  }
  sweepStale(own);
  base = dir;
  return dir;
}

/** Removes the owner directory and the empty tree cgroups left in it (at exit, once the trees were killed). */
export function removeCgroupBase(): void {
  if (typeof base !== "string") return;
  for (const tree of treeCgroups(base)) {
    try {
      rmdirSync(tree);
    } catch {
      // members left: the watchdog, or the next run's sweep, kills and removes it
    }
  }
  try {
    rmdirSync(base);
  } catch {
    // idem
  }
}

/** A cgroup for one process tree. */
export class TreeCgroup {
  private constructor(readonly dir: string) {}

  /** Makes `<base>/<name>`; undefined when that fails. */
  static create(baseDir: string, name: string): TreeCgroup | undefined {
    const dir = path.join(baseDir, name);
    try {
      mkdirSync(dir);
      return new TreeCgroup(dir);
    } catch {
      return undefined;
    }
  }

  /** Its `cgroup.procs` file: writing a pid there moves that process in. */
  get procsFile(): string {
    return path.join(this.dir, "cgroup.procs");
  }

  /** Moves `pid` into the cgroup (its later children are born there). False when refused. */
  adopt(pid: number): boolean {
    try {
      appendFileSync(path.join(this.dir, "cgroup.procs"), `${pid}\n`);
      return true;
    } catch {
      return false;
    }
  }

  /** The live members. */
  members(): number[] {
    try {
      return readFileSync(path.join(this.dir, "cgroup.procs"), "latin1")
        .split("\n")
        .filter((line) => line !== "")
        .map(Number);
    } catch {
      return [];
    }
  }

  /** SIGKILLs every member at once (`cgroup.kill`). */
  kill(): void {
    try {
      writeFileSync(path.join(this.dir, "cgroup.kill"), "1");
    } catch {
      // already gone
    }
  }

  /** True once no process is left in it (`cgroup.events`: populated 0). */
  empty(): boolean {
    try {
      return /^populated 0$/m.test(readFileSync(path.join(this.dir, "cgroup.events"), "latin1"));
    } catch {
      return true;
    }
  }

  /** Removes the cgroup once it is empty; false while members remain. */
  remove(): boolean {
    try {
      rmdirSync(this.dir);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT";
    }
  }
}

/** The tree cgroups left under an owner directory (for the watchdog's last sweep). */
export function treeCgroups(baseDir: string): string[] {
  try {
    return readdirSync(baseDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(baseDir, entry.name));
  } catch {
    return [];
  }
}
