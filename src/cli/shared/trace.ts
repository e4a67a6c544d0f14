/**
 * `--trace FILE`: the conversation as a cassette (the format of `acp tap` and `acp record`, read by `acp replay`;
 * see src/wire/cassette.ts): a header line with both sides' versions and capabilities, then one line per frame,
 * `{"time": <ms since the epoch>, "from": "client" | "agent", "message": {...}}` (or `line` for a line from the agent
 * that was not JSON). Written synchronously, so the file is complete up to the last message even if the process is
 * killed.
 */
import { readFileSync } from "node:fs";
import type { TapListener } from "../../jsonrpc/index.js";
import { openCassetteFile } from "../../node/cassette-file.js";
import { CassetteRecorder } from "../../wire/index.js";

/** An open trace file. */
export interface TraceWriter {
  readonly listener: TapListener;
  close(): void;
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

/** Opens (truncates) `path` for tracing a client's connection. Throws the file system's error when it cannot be created. */
export function openTrace(path: string, tool = "acp --trace"): TraceWriter {
  const file = openCassetteFile(path);
  const recorder = new CassetteRecorder(file.sink, { tool: { name: tool, version: version() } });
  return {
    listener: recorder.tapListener("client"),
    close() {
      recorder.close();
      file.close();
    },
  };
}
