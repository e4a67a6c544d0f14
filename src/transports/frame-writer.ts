/**
 * Coalescing frame writer: the outgoing half of the newline-delimited JSON link.
 *
 * Contracts:
 * - `push` only queues a frame: JSON text (the writer adds its newline) or an encoded line (newline included, written
 *   alone, as it is). Text frames pushed in the same turn are joined and written as ONE batch at the next microtask. While a batch is being written, new frames accumulate and go out together when it settles, so
 *   a slow output gets fewer, larger writes. A batch holds at most about `maxBatch` units (one frame at least),
 *   so a sender that queues a whole turn without waiting never costs a second copy of it. At most one write is
 *   in flight; order is preserved.
 * - `drain()` resolves once the text queued or in flight is below the high-water mark (counted in UTF-16
 *   units, a close stand-in for bytes), or once the writer is dead. Callers above the mark share one promise.
 * - A failed write kills the writer: what is queued is dropped, later pushes are dropped silently, waiters
 *   are released, and `onError` is called once. Nothing throws into the pusher.
 * - `close()` writes what is queued, then closes the sink. Idempotent.
 * - `replyPending` says how much of the pending text is replies (frames pushed with `reply` true), for the link's
 *   input hold (see `backpressure.ts`).
 * - When a write settles with nothing queued, the sink's `idle()` is called (a web sink releases its writer lock).
 */
import { OutputLedger } from "./backpressure.js";
import type { ByteSink } from "./bytes.js";

/**
 * Default high-water mark for `drain()`: 64 KiB, the capacity of a Linux pipe. A sender that queues more than the pipe
 * holds keeps producing while the reader, having emptied the pipe, waits for the next write (that write only happens
 * once the sender yields to the event loop): with 256 KiB, both processes of a stdio link sat idle for part of every
 * cycle (`npm run bench` (a) and (c) pipe rose from 0.9x and 0.8x raw to 1.4x and 1.2x with 64 KiB).
 */
export const DEFAULT_WRITE_HIGH_WATER_MARK = 64 * 1024;

const RESOLVED: Promise<void> = Promise.resolve();

/** The most text (UTF-16 units) joined into one write; a single larger frame is written alone. */
const MAX_BATCH = 64 * 1024;

/** What a frame counts for the high-water mark: UTF-16 units of its line (newline included), or its bytes. */
function unitsOf(frame: string | Uint8Array): number {
  return typeof frame === "string" ? frame.length + 1 : frame.length;
}

export class FrameWriter {
  readonly #sink: ByteSink;
  readonly #highWaterMark: number;
  readonly #onError: (cause: unknown) => void;
  #parts: Array<string | Uint8Array> = [];
  /** Index of the first part not yet taken into a batch. */
  #head = 0;
  #queued = 0;
  #drained: { promise: Promise<void>; resolve: () => void } | undefined;
  #inFlight = 0;
  #writing = false;
  #scheduled = false;
  #dead = false;
  #closing: Promise<void> | undefined;
  /** Called when a write settles: drain waiters and the close flush listen here. */
  #waiters: Array<() => void> = [];
  readonly #ledger = new OutputLedger();

  constructor(sink: ByteSink, highWaterMark: number, onError: (cause: unknown) => void) {
    this.#sink = sink;
    this.#highWaterMark = highWaterMark;
    this.#onError = onError;
  }

  /** Text queued or in flight, in UTF-16 units. */
  get pending(): number {
    return this.#queued + this.#inFlight;
  }

  /** Reply text queued or in flight, in UTF-16 units. */
  get replyPending(): number {
    return this.#ledger.replyPending;
  }

  /** True once a write failed or `close()` was called: pushes are dropped. */
  get stopped(): boolean {
    return this.#dead || this.#closing !== undefined;
  }

  /**
   * Queues one frame: JSON text without its newline, or a whole encoded line (newline included); `reply`: it answers a
   * peer's request. Dropped silently when the writer is dead or closing.
   */
  push(frame: string | Uint8Array, reply = false): void {
    if (this.#dead || this.#closing) return;
    this.#parts.push(frame);
    const units = unitsOf(frame);
    this.#queued += units;
    this.#ledger.enter(units, reply);
    if (!this.#scheduled && !this.#writing) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  /** Resolves once pending output is below the high-water mark (at once when it already is). */
  drain(): Promise<void> {
    if (this.#dead || this.pending < this.#highWaterMark) return RESOLVED;
    if (this.#drained === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#drained = { promise, resolve };
    }
    return this.#drained.promise;
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
    if (this.#writing || this.#dead || this.#head === this.#parts.length) return;
    const [batch, units] = this.#takeBatch();
    this.#inFlight = units;
    this.#queued -= units;
    this.#writing = true;
    let written: Promise<void>;
    try {
      written = this.#sink.write(batch);
    } catch (error) {
      written = Promise.reject(error);
    }
    written.then(this.#written, this.#failed);
  };

  /**
   * Takes queued text frames up to about `maxBatch` units (at least one), joined into lines, or one encoded line;
   * returns it with its size in units.
   */
  #takeBatch(): [string | Uint8Array, number] {
    const parts = this.#parts;
    const start = this.#head;
    const first = parts[start]!;
    let end = start + 1;
    let size = unitsOf(first);
    let batch: string | Uint8Array = first;
    if (typeof first === "string") {
      for (let next = parts[end]; typeof next === "string" && size + next.length + 1 <= MAX_BATCH; next = parts[end]) {
        size += next.length + 1;
        end++;
      }
      if (end - start === 1) batch = first + "\n";
      else {
        const lines = parts.slice(start, end) as string[];
        lines.push(""); // joined with "\n", one more ends the last line
        batch = lines.join("\n");
      }
    }
    if (end === parts.length) {
      this.#parts = [];
      this.#head = 0;
    } else {
      this.#head = end;
      // Drop taken parts now and then, so a long queue does not keep them all alive.
      if (end > 4096 && end * 2 > parts.length) {
        this.#parts = parts.slice(end);
        this.#head = 0;
      }
    }
    return [batch, size];
  }

  readonly #written = (): void => {
    this.#writing = false;
    this.#ledger.leave(this.#inFlight);
    this.#inFlight = 0;
    // Frames that arrived during the write go out now, as one batch; with none, the output is idle.
    if (this.#head < this.#parts.length) this.#flush();
    else this.#sink.idle?.();
    this.#notify();
  };

  readonly #failed = (cause: unknown): void => {
    this.#writing = false;
    this.#dead = true;
    this.#parts = [];
    this.#head = 0;
    this.#queued = 0;
    this.#inFlight = 0;
    this.#ledger.clear();
    this.#notify();
    this.#onError(cause);
  };

  #notify(): void {
    if (this.#drained !== undefined && (this.#dead || this.pending < this.#highWaterMark)) {
      this.#drained.resolve();
      this.#drained = undefined;
    }
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }
}
