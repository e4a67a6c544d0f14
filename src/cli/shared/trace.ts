/**
 * `--trace FILE`: every message the connection's tap sees, both directions, one JSON line each:
 * `{"time": <ms since the epoch>, "iso": "...", "direction": "in" | "out", "message": {...}}` (or `problem`
 * instead of `message` for an incoming frame that was not a message). Written synchronously, so the file is
 * complete up to the last message even if the process is killed.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { TapEvent, TapListener } from "../../jsonrpc/index.js";

/** An open trace file. */
export interface TraceWriter {
  readonly listener: TapListener;
  close(): void;
}

/** Opens (truncates) `path` for tracing. Throws the file system's error when it cannot be created. */
export function openTrace(path: string): TraceWriter {
  let fd: number | undefined = openSync(path, "w");
  return {
    listener(event: TapEvent) {
      if (fd === undefined) return;
      writeSync(fd, `${JSON.stringify({ time: event.time, iso: new Date(event.time).toISOString(), ...withoutTime(event) })}\n`);
    },
    close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}

function withoutTime(event: TapEvent): Omit<TapEvent, "time"> {
  const { time: _time, ...rest } = event;
  return rest;
}
