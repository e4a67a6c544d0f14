/**
 * `--trace FILE`: every message the connection's tap sees, both directions, one JSON line each:
 * `{"time": <ms since the epoch>, "iso": "...", "direction": "in" | "out", "message": {...}}` (or `problem`
 * instead of `message` for an incoming frame that was not a message; `rawId` when the id's exact text differs
 * from the number in `message`). Written synchronously, so the file is complete up to the last message even if
 * the process is killed.
 *
 * Every message gets a record: one that cannot be serialized as is (a cycle, a BigInt, nesting too deep) is
 * recorded as a copy with markers in place of what could not be written, with `"traceNote"` saying so, and a
 * warning goes to `warn`; a write that fails is warned about too. Tracing carries on either way.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { TapEvent, TapListener } from "../../jsonrpc/index.js";
import { traceableCopy } from "./trace-value.js";

/** An open trace file. */
export interface TraceWriter {
  readonly listener: TapListener;
  close(): void;
}

/** Where trace warnings go by default: stderr. */
const toStderr = (text: string) => void process.stderr.write(`${text}\n`);

/** Opens (truncates) `path` for tracing. Throws the file system's error when it cannot be created. */
export function openTrace(path: string, warn: (text: string) => void = toStderr): TraceWriter {
  let fd: number | undefined = openSync(path, "w");
  let count = 0;
  let writeFailed = false;
  const write = (line: string) => {
    try {
      writeSync(fd!, line);
      writeFailed = false;
    } catch (error) {
      // Warn once per run of failures (a full disk fails every write), and keep trying.
      if (!writeFailed) warn(`acp: --trace ${path}: could not write a record (${(error as Error).message}); tracing carries on`);
      writeFailed = true;
    }
  };
  return {
    listener(event: TapEvent) {
      if (fd === undefined) return;
      count++;
      const record = { time: event.time, iso: isoTime(event.time), ...withoutTime(event) };
      let line: string;
      try {
        line = JSON.stringify(record);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        line = JSON.stringify({ ...(traceableCopy(record) as object), traceNote: `not serializable as is (${reason}); markers replace what could not be written` });
        warn(`acp: --trace: message ${count} (${describe(event)}) could not be serialized as is (${reason}); recorded with markers`);
      }
      write(`${line}\n`);
    },
    close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}

function isoTime(time: number): string {
  return Number.isFinite(time) ? new Date(time).toISOString() : String(time);
}

function describe(event: TapEvent): string {
  const message = "message" in event ? (event.message as { method?: unknown; id?: unknown } | null) : null;
  const method = typeof message?.method === "string" ? message.method : message && "id" in message ? "a response" : "a frame";
  return `${event.direction === "in" ? "from" : "to"} the agent, ${method}`;
}

function withoutTime(event: TapEvent): Omit<TapEvent, "time"> {
  const { time: _time, ...rest } = event;
  return rest;
}
