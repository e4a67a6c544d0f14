/**
 * Coalescing frame writer: the outgoing half of the newline-delimited JSON link.
 *
 * Contracts:
 * - `push` only queues text; frames pushed in the same turn are joined and written as ONE batch at the next
 *   microtask. While a batch is being written, new frames accumulate and go out together when it settles, so
 *   a slow output gets fewer, larger writes. At most one write is in flight; order is preserved.
 * - `drain()` resolves once the text queued or in flight is below the high-water mark (counted in UTF-16
 *   units, a close stand-in for bytes), or once the writer is dead.
 * - A failed write kills the writer: what is queued is dropped, later pushes are dropped silently, waiters
 *   are released, and `onError` is called once. Nothing throws into the pusher.
 * - `close()` writes what is queued, then closes the sink. Idempotent.
 */
import type { ByteSink } from "./bytes.js";

/** Default high-water mark for `drain()`: 1 MiB. */
export const DEFAULT_WRITE_HIGH_WATER_MARK = 1024 * 1024;

export class FrameWriter {
  readonly #sink: ByteSink;
  readonly #highWaterMark: number;
  readonly #onError: (cause: unknown) => void;
  #parts: string[] = [];
  #queued = 0;
  #inFlight = 0;
  #writing = false;
  #scheduled = false;
  #dead = false;
  #closing: Promise<void> | undefined;
  /** Called when a write settles: drain waiters and the close flush listen here. */
  #waiters: Array<() => void> = [];

  constructor(sink: ByteSink, highWaterMark: number, onError: (cause: unknown) => void) {
    this.#sink = sink;
    this.#highWaterMark = highWaterMark;
    this.#onError = onError;
  }

  /** Text queued or in flight, in UTF-16 units. */
  get pending(): number {
    return this.#queued + this.#inFlight;
  }

  /** True once a write failed or `close()` was called: pushes are dropped. */
  get stopped(): boolean {
    return this.#dead || this.#closing !== undefined;
  }

  /** Queues one frame (its newline included). Dropped silently when the writer is dead or closing. */
  push(frame: string): void {
    if (this.#dead || this.#closing) return;
    this.#parts.push(frame);
    this.#queued += frame.length;
    if (!this.#scheduled && !this.#writing) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  /** Resolves once pending output is below the high-water mark (at once when it already is). */
  drain(): Promise<void> {
    if (this.#dead || this.pending < this.#highWaterMark) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#dead || this.pending < this.#highWaterMark) resolve();
        else this.#waiters.push(check);
      };
      this.#waiters.push(check);
    });
  }

  /** Flushes what is queued, then closes the sink. Idempotent; never rejects. */
  close(): Promise<void> {
    this.#closing ??= this.#closeNow();
    return this.#closing;
  }

  async #closeNow(): Promise<void> {
    if (!this.#writing) this.#flush();
    while (this.#writing && !this.#dead) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    await this.#sink.close();
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#writing || this.#dead || this.#parts.length === 0) return;
    const parts = this.#parts;
    const text = parts.length === 1 ? parts[0]! : parts.join("");
    this.#parts = [];
    this.#inFlight = this.#queued;
    this.#queued = 0;
    this.#writing = true;
    let written: Promise<void>;
    try {
      written = this.#sink.write(text);
    } catch (error) {
      written = Promise.reject(error);
    }
    written.then(this.#written, this.#failed);
  };

  readonly #written = (): void => {
    this.#writing = false;
    this.#inFlight = 0;
    // Frames that arrived during the write go out now, as one batch.
    if (this.#parts.length > 0) this.#flush();
    this.#notify();
  };

  readonly #failed = (cause: unknown): void => {
    this.#writing = false;
    this.#dead = true;
    this.#parts = [];
    this.#queued = 0;
    this.#inFlight = 0;
    this.#notify();
    this.#onError(cause);
  };

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }
}
