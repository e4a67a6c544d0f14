/**
 * Fast reads of /proc files (Linux): one `read` into a reused buffer instead of `readFileSync`, which reads these
 * size-0 files twice and makes the kernel render them twice (`stat` costs 4x more that way). Used by the process
 * scans that run on every poll while a process tree is stopped.
 */
import { closeSync, openSync, readSync } from "node:fs";

const statBuffer = Buffer.allocUnsafe(1024);
let environBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * What /proc/<pid>/stat says of a process: its state letter, process group, and start time (clock ticks after boot).
 */
export interface ProcStat {
  state: string;
  pgrp: number;
  start: number;
}

/** The state, process group and start time of `pid` from /proc/<pid>/stat, or undefined when it is gone. */
export function procStat(pid: string | number): ProcStat | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/stat`, "r");
  } catch {
    return undefined;
  }
  try {
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0);
    const text = statBuffer.toString("latin1", 0, length);
    // After "pid (comm) ": state is field 3 of the line, pgrp field 5, starttime field 22.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ", 20);
    return { state: fields[0]!, pgrp: Number(fields[2]), start: Number(fields[19]) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The initial environment block of `pid` (NUL-separated), or undefined when unreadable. Valid until the next call. */
export function procEnviron(pid: string | number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, "r");
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === environBuffer.length) {
        const bigger = Buffer.allocUnsafe(environBuffer.length * 2);
        environBuffer.copy(bigger);
        environBuffer = bigger;
      }
      const read = readSync(fd, environBuffer, length, environBuffer.length - length, null);
      if (read === 0) return environBuffer.subarray(0, length);
      length += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
