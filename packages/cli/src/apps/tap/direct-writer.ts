/**
 * Writing to the tap's own stdout straight to its file descriptor while the stream in front of it is empty: one
 * `write(2)` and no stream machinery per chunk, which is most of what forwarding costs the tap. Whatever the
 * descriptor does not take at once (a full pipe says EAGAIN, or takes part) goes through the stream, and everything
 * after it too until the stream is empty again, so bytes never overtake each other.
 *
 * A descriptor that fails otherwise (EPIPE: the reader is gone) is given up: later chunks are dropped, as the stream
 * drops them once it failed, and the tap goes on reading so the agent is never blocked on a reader that left.
 */
import { writeSync } from "node:fs";
import type { Writable } from "node:stream";

export class DirectWriter {
  readonly #stream: Writable;
  readonly #fd: number;
  #failed = false;
  #queued = 0;

  /** `stream` writes to `fd` (process.stdout and 1): the stream is touched only for what the descriptor refused. */
  constructor(stream: Writable, fd: number) {
    this.#stream = stream;
    this.#fd = fd;
  }

  /** True once the descriptor or the stream failed: chunks are dropped from then on. */
  get failed(): boolean {
    return this.#failed || this.#stream.destroyed;
  }

  /** How many chunks went (in part or whole) through the stream: the descriptor refused them, or the stream held some. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Writes `chunk`, which must not change afterwards (what the descriptor refused is queued as is). False: the
   * stream holds more than it wants, wait for its `drain` before writing more.
   */
  write(chunk: Uint8Array): boolean {
    if (this.failed) return true;
    let written = 0;
    if (this.#stream.writableLength === 0) {
      try {
        written = writeSync(this.#fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") {
          this.#failed = true;
          return true;
        }
      }
    }
    if (written === chunk.length) return true;
    this.#queued++;
    return this.#stream.write(written === 0 ? chunk : chunk.subarray(written));
  }
}
