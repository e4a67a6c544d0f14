/**
 * In-memory transports: two connected message streams in one process, for tests and for embedding an agent
 * and a client in the same program; and two connected byte-stream pairs, to run `ndJsonStream` in process.
 */
import { rawIdOf } from "../jsonrpc/envelope-scanner.js";
import type { LinkReceiver, MessageLink, Stream } from "../jsonrpc/link.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import {
  InputGate,
  isReply,
  OutputLedger,
  refuseOverBacklog,
  resolveMaxBufferedBytes,
  type BackpressureOptions,
} from "./backpressure.js";
import { DEFAULT_WRITE_HIGH_WATER_MARK } from "./frame-writer.js";
import { LinkLifecycle } from "./link-lifecycle.js";
import { streamFromLink, type LinkControl, type LinkStreamOptions } from "./link-streams.js";
import { resolveMaxMessageBytes, serializeMessage } from "./serialize.js";

/** Options of `createMemoryPair`. */
export interface MemoryPairOptions extends LinkStreamOptions, BackpressureOptions {
  /** Outgoing messages larger than this (UTF-8 bytes of their JSON) are refused. Default 32 MiB. */
  maxMessageBytes?: number;
  /** `drain()` waits while more than this much sent text is not yet delivered to the peer. Default 64 KiB. */
  writeHighWaterMark?: number;
}

const RESOLVED: Promise<void> = Promise.resolve();

/** One end of an in-memory link. See `createMemoryPair` for the contract. */
class MemoryLink implements MessageLink, LinkControl {
  peer!: MemoryLink;
  readonly #maxBytes: number;
  readonly #highWaterMark: number;
  readonly #maxBuffered: number;
  /** What this side sent that the peer has not taken yet. */
  readonly #ledger = new OutputLedger();
  readonly #gate = new InputGate(
    () => (this.#paused = true),
    () => {
      this.#paused = false;
      this.#schedule();
    },
  );
  #drained: { promise: Promise<void>; resolve: () => void } | undefined;
  /** The receiver, and the end of our input: drop what is queued, the peer's sends no longer wait on us. */
  readonly #life = new LinkLifecycle(() => {
    this.#inbox = [];
    this.#next = 0;
    this.peer.#taken(Number.POSITIVE_INFINITY);
  });
  /** Serialized messages from the peer not yet delivered; `#next` is the first undelivered one. */
  #inbox: string[] = [];
  #next = 0;
  #scheduled = false;
  #paused = false;
  /** The peer closed its output: `closed()` follows the last queued message. */
  #inputEnded = false;
  #outputClosed = false;

  constructor(maxBytes: number, highWaterMark: number, maxBuffered: number) {
    this.#maxBytes = maxBytes;
    this.#highWaterMark = highWaterMark;
    this.#maxBuffered = maxBuffered;
  }

  /** The largest message sent or accepted, in UTF-8 bytes. */
  get maxMessageBytes(): number {
    return this.#maxBytes;
  }

  start(receiver: LinkReceiver): void {
    if (this.#life.start(receiver)) this.#schedule();
  }

  send(message: AnyMessage, rawId?: string): void {
    const text = serializeMessage(message, this.#maxBytes, rawId);
    if (this.#outputClosed || !this.peer.#accepting) return;
    const reply = isReply(message);
    if (!reply) refuseOverBacklog(message, this.#ledger.pending, this.#maxBuffered);
    this.#ledger.enter(text.length, reply);
    this.peer.#accept(text);
    // The peer is not taking our replies: stop taking its messages until it catches up.
    if (reply && this.#ledger.replyPending >= this.#highWaterMark && !this.#life.finished) this.#gate.output(true);
  }

  /** Resolves once less than the high-water mark of what this side sent is waiting for the peer. */
  drain(): Promise<void> {
    if (this.#ledger.pending < this.#highWaterMark || !this.peer.#accepting) return RESOLVED;
    if (this.#drained === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#drained = { promise, resolve };
    }
    return this.#drained.promise;
  }

  close(): Promise<void> {
    void this.closeOutput();
    this.#life.finishLater(undefined);
    return Promise.resolve();
  }

  pauseInput(): void {
    this.#gate.reader(true);
  }

  resumeInput(): void {
    this.#gate.reader(false);
  }

  stopInput(): void {
    this.#life.finishLater(undefined);
  }

  closeOutput(): Promise<void> {
    if (!this.#outputClosed) {
      this.#outputClosed = true;
      this.peer.#endInput();
    }
    return Promise.resolve();
  }

  get #accepting(): boolean {
    return !this.#life.finished && !this.#inputEnded;
  }

  #accept(text: string): void {
    this.#inbox.push(text);
    this.#schedule();
  }

  /** The peer took `units` of what this side sent (or, with `Infinity`, will take nothing more). */
  #taken(units: number): void {
    if (units === Number.POSITIVE_INFINITY) this.#ledger.clear();
    else this.#ledger.leave(units);
    if (this.#ledger.pending >= this.#highWaterMark && this.peer.#accepting) return;
    if (this.#gate.heldByOutput) this.#gate.output(false);
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.resolve();
  }

  #endInput(): void {
    this.#inputEnded = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || !this.#life.receiver || this.#paused || this.#life.finished) return;
    this.#scheduled = true;
    queueMicrotask(this.#deliver);
  }

  /** Delivers every queued message in order (one microtask for a whole batch), then a pending end. */
  readonly #deliver = (): void => {
    this.#scheduled = false;
    const receiver = this.#life.receiver!;
    let taken = 0;
    try {
      while (this.#next < this.#inbox.length && !this.#paused && !this.#life.finished) {
        const text = this.#inbox[this.#next++]!;
        taken += text.length;
        const value: unknown = JSON.parse(text);
        receiver.message(value, rawIdOf(value, text));
      }
    } catch (error) {
      this.#life.finish(error);
      return;
    } finally {
      if (taken > 0) this.peer.#taken(taken);
    }
    if (this.#next === this.#inbox.length) {
      this.#inbox = [];
      this.#next = 0;
      if (this.#inputEnded) this.#life.finish(undefined);
    }
  };
}

/**
 * Two connected in-memory `Stream`s (each with a fast `[LINK]`): what one side sends, the other receives.
 *
 * - Each message is serialized on `send` (unserializable or oversized values throw synchronously, as with
 *   `ndJsonStream`) and parsed on delivery, so the receiver gets a copy.
 * - Delivery is asynchronous and in order: everything sent in one turn is delivered in one microtask.
 * - `close()` on one side delivers what it already sent, then ends the other side's input with `closed()`;
 *   its own input stops and its receiver gets `closed()` too.
 * - Backpressure as on every acpkit link (see `backpressure.ts`): what one side sent and the other has not taken
 *   (its reader is paused) counts as queued output: `drain()` waits above `writeHighWaterMark`, requests and
 *   notifications are refused with `OutputBacklogError` at `maxBufferedBytes`, and a side whose replies are not
 *   taken stops taking the peer's messages until they are.
 */
export function createMemoryPair(options: MemoryPairOptions = {}): [Stream, Stream] {
  const maxBytes = resolveMaxMessageBytes(options.maxMessageBytes);
  const maxBuffered = resolveMaxBufferedBytes(options.maxBufferedBytes);
  const highWaterMark = options.writeHighWaterMark ?? DEFAULT_WRITE_HIGH_WATER_MARK;
  const left = new MemoryLink(maxBytes, highWaterMark, maxBuffered);
  const right = new MemoryLink(maxBytes, highWaterMark, maxBuffered);
  left.peer = right;
  right.peer = left;
  return [streamFromLink(left, options), streamFromLink(right, options)];
}

/** One end of an in-memory byte connection: what it reads and what it writes. */
export interface ByteStreamEnd {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

/**
 * Two connected ends of an in-memory byte connection: bytes written to one end's `output` are read from the
 * other end's `input`. Use it to run `ndJsonStream(end.output, end.input)` on both sides in one process.
 */
export function createMemoryByteStreams(): [ByteStreamEnd, ByteStreamEnd] {
  const leftToRight = new TransformStream<Uint8Array, Uint8Array>();
  const rightToLeft = new TransformStream<Uint8Array, Uint8Array>();
  return [
    { input: rightToLeft.readable, output: leftToRight.writable },
    { input: leftToRight.readable, output: rightToLeft.writable },
  ];
}
