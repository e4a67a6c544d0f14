/**
 * `faultyReadable` and `faultyWritable`: byte streams that misbehave on purpose, to put under `ndJsonStream` (or
 * any byte transport) in tests: fragmentation down to single bytes, latency, partial writes, a slow reader, a write
 * that fails with EPIPE, a peer that dies in the middle of a frame. Seeded: the same seed gives the same pieces.
 * Browser-safe (web streams and timers only).
 */
import {
  delayOf,
  injectedReadError,
  injectedWriteError,
  SeededRandom,
  sleep,
  type FaultEvent,
  type FaultLog,
  type Latency,
} from "./fault-plan.js";

/** How chunks are cut: into single bytes, or into random pieces of 1 to `n` bytes. */
export type Fragmentation = "every-byte" | number;

/** Options of `faultyReadable`. */
export interface ReadableFaultOptions {
  seed?: number;
  /** Cut every chunk read into pieces (each piece is one read for the consumer). */
  fragment?: Fragmentation;
  /** Delay before each piece is handed over. */
  latencyMs?: Latency;
  /**
   * The peer dies after this many bytes: the stream ends there (cleanly, as a dead process's stdout does), even
   * mid-frame.
   */
  endAfterBytes?: number;
  /** The connection is reset after this many bytes: the stream errors with ECONNRESET. */
  errorAfterBytes?: number;
  onFault?: (event: FaultEvent) => void;
}

/** Options of `faultyWritable`. */
export interface WritableFaultOptions {
  seed?: number;
  /** Partial writes: each write reaches the output in pieces, one awaited write each. */
  fragment?: Fragmentation;
  /** Delay before each piece is written. */
  latencyMs?: Latency;
  /** A slow reader: the output takes at most this many bytes per second (writes wait, so backpressure builds up). */
  bytesPerSecond?: number;
  /**
   * The reader goes away after this many bytes: the bytes up to there are written, then the write fails with EPIPE, and
   * so does every later one.
   */
  failAfterBytes?: number;
  onFault?: (event: FaultEvent) => void;
}

class Recorder implements FaultLog {
  readonly random: SeededRandom;
  readonly events: FaultEvent[] = [];
  readonly #onFault: ((event: FaultEvent) => void) | undefined;

  constructor(seed: number | undefined, onFault: ((event: FaultEvent) => void) | undefined) {
    this.random = new SeededRandom(seed);
    this.#onFault = onFault;
  }

  get seed(): number {
    return this.random.seed;
  }

  record(event: FaultEvent): void {
    this.events.push(event);
    this.#onFault?.(event);
  }
}

/** Cuts `bytes` into pieces as `fragment` says (the whole chunk without it). */
function cut(bytes: Uint8Array, fragment: Fragmentation | undefined, random: SeededRandom): Uint8Array[] {
  if (fragment === undefined || bytes.length <= 1) return [bytes];
  const max = fragment === "every-byte" ? 1 : Math.max(1, Math.floor(fragment));
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = max === 1 ? 1 : random.between(1, max);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

/**
 * A readable that yields `input`'s bytes with the faults of `options`. Reading is pulled (the wrapper reads
 * `input` only when its own consumer wants more), so backpressure passes through. The result has a `faults` log.
 */
export function faultyReadable(
  input: ReadableStream<Uint8Array>,
  options: ReadableFaultOptions = {},
): ReadableStream<Uint8Array> & { faults: FaultLog } {
  const log = new Recorder(options.seed, options.onFault);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let pending: Uint8Array[] = [];
  let passed = 0;
  let index = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= input.getReader();
        while (pending.length === 0) {
          const { value, done } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          pending = cut(value, options.fragment, log.random);
          if (pending.length > 1)
            log.record({
              direction: "receive",
              kind: "fragment",
              index,
              detail: `${value.length} bytes in ${pending.length} pieces`,
            });
        }
        let piece = pending.shift()!;
        const ms = delayOf(options.latencyMs, log.random);
        if (ms > 0) await sleep(ms);
        const limit = Math.min(options.endAfterBytes ?? Infinity, options.errorAfterBytes ?? Infinity);
        if (passed + piece.length >= limit) {
          piece = piece.subarray(0, limit - passed);
          if (piece.length > 0) controller.enqueue(piece);
          passed = limit;
          void reader.cancel().catch(() => {});
          if (options.errorAfterBytes === limit) {
            log.record({ direction: "receive", kind: "read_error", index, detail: `reset after ${limit} bytes` });
            controller.error(injectedReadError(`the connection was reset after ${limit} bytes`));
          } else {
            log.record({ direction: "receive", kind: "end", index, detail: `the peer exited after ${limit} bytes` });
            controller.close();
          }
          return;
        }
        passed += piece.length;
        index++;
        controller.enqueue(piece);
      },
      cancel(reason) {
        return (reader ?? input).cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return Object.assign(stream, { faults: log as FaultLog });
}

/**
 * A writable that writes to `output` with the faults of `options`. A write settles once all its pieces were
 * written (so a slow reader holds the writer, as a full pipe does). The result has a `faults` log.
 */
export function faultyWritable(
  output: WritableStream<Uint8Array>,
  options: WritableFaultOptions = {},
): WritableStream<Uint8Array> & { faults: FaultLog } {
  const log = new Recorder(options.seed, options.onFault);
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let written = 0;
  let index = 0;
  let broken: Error | undefined;
  const stream = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (broken) throw broken;
      writer ??= output.getWriter();
      const bytes =
        typeof (chunk as unknown) === "string" ? new TextEncoder().encode(chunk as unknown as string) : chunk;
      const pieces = cut(bytes, options.fragment, log.random);
      if (pieces.length > 1)
        log.record({
          direction: "send",
          kind: "fragment",
          index,
          detail: `${bytes.length} bytes in ${pieces.length} pieces`,
        });
      for (let piece of pieces) {
        const ms =
          delayOf(options.latencyMs, log.random) +
          (options.bytesPerSecond ? (piece.length * 1000) / options.bytesPerSecond : 0);
        if (ms > 0) await sleep(ms);
        const limit = options.failAfterBytes ?? Infinity;
        if (written + piece.length > limit) {
          piece = piece.subarray(0, limit - written);
          if (piece.length > 0) await writer.write(piece);
          written = limit;
          broken = injectedWriteError(`the reader went away after ${limit} bytes`);
          log.record({ direction: "send", kind: "write_error", index, detail: `after ${limit} bytes` });
          throw broken;
        }
        await writer.write(piece);
        written += piece.length;
      }
      index++;
    },
    async close() {
      writer ??= output.getWriter();
      await writer.close();
    },
    async abort(reason) {
      await (writer ?? output).abort(reason);
    },
  });
  return Object.assign(stream, { faults: log as FaultLog });
}
