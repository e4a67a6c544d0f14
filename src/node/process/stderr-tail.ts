/**
 * The last lines a process printed on stderr: a ring buffer fed with raw chunks, for error messages such as
 * "the agent did not answer initialize within 30 s; it printed: ...".
 */
import { StringDecoder } from "node:string_decoder";

/** Options of `StderrTail`. */
export interface StderrTailOptions {
  /** How many complete lines to keep. Default 20. */
  maxLines?: number;
  /** Longer lines are cut to this many characters (with "…"). Default 2000. */
  maxLineLength?: number;
  /** Called with every complete line (without its line break), e.g. to forward it to a log. */
  onLine?: (line: string) => void;
}

/**
 * Splits a byte stream into lines (LF or CRLF, decoded as UTF-8 across chunk boundaries) and keeps the last
 * `maxLines`. A trailing line without a line break is included by `lines()` too, so a message printed just
 * before a hang is not lost. Memory is bounded: a huge line without a break is cut.
 */
export class StderrTail {
  private readonly maxLines: number;
  private readonly maxLineLength: number;
  private readonly onLine: ((line: string) => void) | undefined;
  private readonly decoder = new StringDecoder("utf8");
  private readonly ring: string[] = [];
  private partial = "";

  constructor(options: StderrTailOptions = {}) {
    this.maxLines = Math.max(1, options.maxLines ?? 20);
    this.maxLineLength = Math.max(1, options.maxLineLength ?? 2000);
    this.onLine = options.onLine;
  }

  /** Feeds a chunk of the stream. */
  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === "string" ? chunk : this.decoder.write(chunk as Buffer);
    const parts = (this.partial + text).split("\n");
    this.partial = this.cut(parts.pop()!);
    for (const part of parts) this.add(part.endsWith("\r") ? part.slice(0, -1) : part);
  }

  /** Ends the stream: a last line without a break becomes a complete line. */
  end(): void {
    const rest = this.partial + this.decoder.end();
    this.partial = "";
    if (rest !== "") this.add(rest);
  }

  /** The last lines (oldest first), including an unfinished last line. */
  lines(): string[] {
    return this.partial === "" ? [...this.ring] : [...this.ring, this.partial].slice(-this.maxLines);
  }

  private cut(line: string): string {
    return line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line;
  }

  private add(line: string): void {
    const cut = this.cut(line);
    this.ring.push(cut);
    if (this.ring.length > this.maxLines) this.ring.shift();
    this.onLine?.(cut);
  }
}
