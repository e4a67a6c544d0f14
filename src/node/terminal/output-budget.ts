/**
 * A total cap on terminal output kept in memory, per session and for the whole host (a connection), beside each
 * terminal's own `outputByteLimit`: a peer that starts many noisy terminals cannot make the client keep more than
 * the caps. When output goes over a cap, the oldest terminals (of that session, or of any session for the host's
 * cap) drop their oldest bytes first, the receiving terminal last, so the newest output is what stays; a terminal
 * that dropped bytes reports `truncated`. Released terminals free their share.
 */
import type { OutputBuffer } from "./output-buffer.js";

interface Entry {
  sessionId: string;
  buffer: OutputBuffer;
}

/** The bytes kept, per session and in total, over the registered buffers (oldest first). */
export class OutputBudget {
  readonly #entries: Entry[] = [];

  constructor(
    readonly maxSessionBytes: number,
    readonly maxTotalBytes: number,
  ) {}

  /** Bytes kept by a session's terminals, or by all. */
  bytes(sessionId?: string): number {
    let sum = 0;
    for (const entry of this.#entries)
      if (sessionId === undefined || entry.sessionId === sessionId) sum += entry.buffer.byteLength;
    return sum;
  }

  /** Registers a new terminal's buffer (the newest). */
  add(sessionId: string, buffer: OutputBuffer): void {
    this.#entries.push({ sessionId, buffer });
  }

  /**
   * Appends `chunk` to `buffer` (registered for `sessionId`), then trims the oldest output to stay within both caps.
   */
  append(sessionId: string, buffer: OutputBuffer, chunk: Uint8Array): void {
    buffer.append(chunk);
    this.#trim(this.bytes(sessionId) - this.maxSessionBytes, (entry) => entry.sessionId === sessionId, buffer);
    this.#trim(this.bytes() - this.maxTotalBytes, () => true, buffer);
  }

  /** Forgets `buffer` and frees what it kept (its terminal was released). */
  release(buffer: OutputBuffer): void {
    const index = this.#entries.findIndex((entry) => entry.buffer === buffer);
    if (index !== -1) this.#entries.splice(index, 1);
    buffer.trimTo(0);
  }

  /** Drops `excess` bytes from the matching buffers, oldest first, `last` after all others. */
  #trim(excess: number, matches: (entry: Entry) => boolean, last: OutputBuffer): void {
    if (excess <= 0) return;
    const order = this.#entries.filter((entry) => matches(entry) && entry.buffer !== last).map((entry) => entry.buffer);
    order.push(last);
    for (const buffer of order) {
      if (excess <= 0) return;
      const take = Math.min(excess, buffer.byteLength);
      if (take === 0) continue;
      buffer.trimTo(buffer.byteLength - take);
      excess -= take;
    }
  }
}
