/**
 * Test support: the processes below an `acp serve` (Linux: /proc): their command lines, the agents and whatever they
 * started, and their resident memory.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The command line of `pid` ("" when it is gone). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/**
 * The pids of every live descendant of `root` (Linux: /proc), parents first, except the orphan guard's watchdog
 * (`node -e ...`, which lives as long as `root`): the agent processes and whatever they started.
 */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (pid === root && cmdline(child).startsWith(`${process.execPath} -e`)) continue;
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

/** The resident set size of `pid` in MiB, or 0 when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}
