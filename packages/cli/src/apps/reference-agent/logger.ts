/**
 * The reference agent's logger: one line per event on stderr (stdout carries only protocol frames, as the ACP
 * stdio transport requires). Quiet below `level`; `ACP_LOG=debug|info|warn|error|silent` picks it.
 * @see https://agentclientprotocol.com/protocol/transports#stdio
 */
import type { Logger } from "@acpkit/sdk";

const LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LEVELS)[number];

/** Parses a level name; undefined for anything else. */
export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  return LEVELS.find((level) => level === value);
}

/** A logger writing `acp agent: <level> <message> <fields as JSON>` lines to `write` (default: stderr). */
export function stderrLogger(
  level: LogLevel = "warn",
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const threshold = LEVELS.indexOf(level);
  const at = (name: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS.indexOf(name) < threshold) return;
    write(`acp agent: ${name} ${message}${fields === undefined ? "" : ` ${JSON.stringify(fields)}`}\n`);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
