/**
 * Watches the raw bytes of a conversation going both ways (a proxy's view): splits each direction into lines, parses
 * them, runs every frame through a `WireChecker` and, optionally, a `CassetteRecorder`. It never changes or holds
 * the bytes: the proxy forwards them first and shows them here after.
 */
import { now } from "../jsonrpc/tap.js";
import { LineSplitter } from "../transports/line-splitter.js";
import type { Side, WireEvent, WireFrame } from "./events.js";
import type { CassetteRecorder } from "./recorder.js";
import type { WireChecker } from "./wire-checker.js";

/** Options of a `WireObserver`. */
export interface WireObserverOptions {
  checker: WireChecker;
  recorder?: CassetteRecorder;
  /** Lines longer than this are oversized frames. Default 128 MiB. */
  maxLineBytes?: number;
  /** Sees each event. */
  onEvent?: (event: WireEvent) => void;
}

export class WireObserver {
  private readonly splitters: Record<Side, LineSplitter>;

  constructor(private readonly options: WireObserverOptions) {
    const max = options.maxLineBytes ?? 128 * 1024 * 1024;
    const splitter = (from: Side) =>
      new LineSplitter(max, {
        line: (text) => this.line(from, text),
        tooLarge: (bytes, head) => this.frame(from, { kind: "oversized", bytes, head }),
      });
    this.splitters = { client: splitter("client"), agent: splitter("agent") };
  }

  /** Bytes `from` wrote. */
  bytes(from: Side, chunk: Uint8Array): void {
    this.splitters[from].push(chunk);
  }

  /** `from`'s output ended (a last line without a newline is still a frame). */
  end(from: Side): void {
    this.splitters[from].end();
  }

  private line(from: Side, text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.frame(from, { kind: "unparsable", line: text });
      return;
    }
    this.frame(from, { kind: "message", value }, text);
  }

  private frame(from: Side, frame: WireFrame, raw?: string): void {
    const time = now();
    const event = this.options.checker.frame(from, frame, time);
    this.options.recorder?.frame(from, frame, time, raw);
    this.options.onEvent?.(event);
  }
}
