/**
 * The worker thread behind `PrefaultedSlabs` (./prefaulted-slabs.ts): on each request, a slab (a SharedArrayBuffer)
 * whose every page it touched once, so that the tap's reads land in memory that is already mapped. The thread runs
 * under SCHED_IDLE on Linux (nice 19 elsewhere): the first touch of fresh memory, which is what costs, is paid on CPU
 * time nothing else wants. Does nothing unless started as that worker.
 */
import { spawnSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { isMainThread, parentPort } from "node:worker_threads";
import { findChrt } from "./analyzer-launch.js";

/** The size of a memory page; touching one byte of each maps the whole slab. */
const PAGE = 4096;

if (!isMainThread && parentPort) {
  const port = parentPort;
  lowerOwnPriority();
  port.on("message", (request: { bytes: number }) => {
    const slab = new SharedArrayBuffer(request.bytes);
    const view = new Uint8Array(slab);
    for (let at = 0; at < view.length; at += PAGE) view[at] = 0;
    port.postMessage(slab);
  });
}

/** This thread only: SCHED_IDLE where `chrt` can set it (Linux), else the lowest nice value. */
function lowerOwnPriority(): void {
  let tid: number | undefined;
  try {
    tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
  } catch {
    // No /proc: not Linux, where nice applies to the whole process; leave it.
    return;
  }
  const chrt = findChrt();
  if (chrt && spawnSync(chrt, ["--idle", "-p", "0", String(tid)], { stdio: "ignore", timeout: 2000 }).status === 0)
    return;
  try {
    setPriority(tid, 19);
  } catch {
    // Not allowed: it runs at the tap's priority.
  }
}
