/**
 * `--trace FILE`: the conversation as a cassette (the format of `acp tap` and `acp record`, read by `acp replay`;
 * see src/wire/cassette.ts): a header line with both sides' versions and capabilities, then one line per frame,
 * `{"time": <ms since the epoch>, "from": "client" | "agent", "message": {...}}` (or `line` for a line from the agent
 * that was not JSON; `rawId` when the id's exact text differs from the number in `message`). Written synchronously,
 * so the file is complete up to the last message even if the process is killed.
 *
 * Every message gets a record: one that cannot be serialized as is (a cycle, a BigInt, nesting too deep) is
 * recorded as a copy with markers in place of what could not be written, with a `note` saying so, and a warning
 * goes to `warn`; a write that fails is warned about too. Tracing carries on either way.
 */
import { libraryVersion } from "./versions.js";
import type { TapEvent, TapListener } from "@acpkit/sdk";
import { openCassetteFile } from "@acpkit/sdk/node";
import { CassetteRecorder } from "@acpkit/sdk/wire";
import { traceableCopy } from "./trace-value.js";

/** An open trace file. */
export interface TraceWriter {
  readonly listener: TapListener;
  close(): void;
}

/** Where trace warnings go by default: stderr. */
const toStderr = (text: string) => void process.stderr.write(`${text}\n`);

function version(): string {
  return libraryVersion();
}

/**
 * Opens (truncates) `path` for tracing a client's connection. Throws the file system's error when it cannot be created.
 */
export function openTrace(path: string, warn: (text: string) => void = toStderr, tool = "acp --trace"): TraceWriter {
  const file = openCassetteFile(path);
  let writeFailed = false;
  const sink = (line: string) => {
    try {
      file.sink(line);
      writeFailed = false;
    } catch (error) {
      // Warn once per run of failures (a full disk fails every write), and keep trying.
      if (!writeFailed)
        warn(`acp: --trace ${path}: could not write a record (${(error as Error).message}); tracing carries on`);
      writeFailed = true;
    }
  };
  const recorder = new CassetteRecorder(sink, { tool: { name: tool, version: version() } });
  const record = recorder.tapListener("client");
  let count = 0;
  return {
    listener(event: TapEvent) {
      count++;
      try {
        record(event);
      } catch (error) {
        if (!("message" in event)) return;
        const reason = error instanceof Error ? error.message : String(error);
        const note = `not serializable as is (${reason}); markers replace what could not be written`;
        const notes = event.rawId === undefined ? { note } : { note, rawId: event.rawId };
        recorder.message(
          event.direction === "out" ? "client" : "agent",
          traceableCopy(event.message),
          event.time,
          undefined,
          notes,
        );
        warn(
          `acp: --trace: message ${count} (${describe(event)}) could not be serialized as is (${reason}); ` +
            `recorded with markers`,
        );
      }
    },
    close() {
      recorder.close();
      try {
        file.close();
      } catch (error) {
        warn(`acp: --trace ${path}: could not write the last records (${(error as Error).message})`);
      }
    },
  };
}

function describe(event: TapEvent): string {
  const message = "message" in event ? (event.message as { method?: unknown; id?: unknown } | null) : null;
  const method =
    typeof message?.method === "string" ? message.method : message && "id" in message ? "a response" : "a frame";
  return `${event.direction === "in" ? "from" : "to"} the agent, ${method}`;
}
