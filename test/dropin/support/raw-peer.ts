/**
 * Test support: the far end of a connection as raw JSON-RPC messages the test writes and reads itself, and a logger
 * that records what the library reports.
 */
import { createMemoryPair, type AnyMessage, type Logger, type Stream } from "../../../src/entries/index.js";

export interface RawPeer {
  /** Hand this to the connection under test. */
  readonly stream: Stream;
  /** Everything the connection under test sent, in order. */
  readonly received: AnyMessage[];
  send(message: unknown): Promise<void>;
  /** Resolves with the first received message (from `from` on) that `match` accepts. */
  next(match: (message: Record<string, unknown>) => boolean, from?: number): Promise<Record<string, unknown>>;
}

export function rawPeer(): RawPeer {
  const [mine, theirs] = createMemoryPair();
  const received: AnyMessage[] = [];
  let wake: (() => void) | undefined;
  const reader = theirs.readable.getReader();
  const writer = theirs.writable.getWriter();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      received.push(value);
      wake?.();
    }
  })();
  return {
    stream: mine,
    received,
    send: (message) => writer.write(message as AnyMessage),
    async next(match, from = 0) {
      for (;;) {
        const found = received.slice(from).find((m) => match(m as Record<string, unknown>));
        if (found) return found as Record<string, unknown>;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

export interface LogLine {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger that keeps every line. */
export function recordingLogger(): Logger & { lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at = (level: LogLine["level"]) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  return {
    lines,
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    text: () => lines.map((l) => `${l.level} ${l.message} ${JSON.stringify(l.fields ?? {})}`).join("\n"),
  };
}
