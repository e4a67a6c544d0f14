/**
 * In-memory transports: two connected message streams in one process, for tests and for embedding an agent
 * and a client in the same program; and two connected byte-stream pairs, to run `ndJsonStream` in process.
 */
import { rawIdOf } from "../jsonrpc/envelope-scanner.js";
import type { LinkReceiver, MessageLink, Stream } from "../jsonrpc/link.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { streamFromLink, type LinkControl, type LinkStreamOptions } from "./link-streams.js";
import { resolveMaxMessageBytes, serializeMessage } from "./serialize.js";

/** Options of `createMemoryPair`. */
export interface MemoryPairOptions extends LinkStreamOptions {
  /** Outgoing messages larger than this (UTF-8 bytes of their JSON) are refused. Default 32 MiB. */
  maxMessageBytes?: number;
}

/** One end of an in-memory link. See `createMemoryPair` for the contract. */
class MemoryLink implements MessageLink, LinkControl {
  peer!: MemoryLink;
  readonly #maxBytes: number;
  #receiver: LinkReceiver | undefined;
  /** Serialized messages from the peer not yet delivered; `#next` is the first undelivered one. */
  #inbox: string[] = [];
  #next = 0;
  #scheduled = false;
  #paused = false;
  /** The peer closed its output: `closed()` follows the last queued message. */
  #inputEnded = false;
  /** Our input is over; `closed(#cause)` is (or will be) delivered once. */
  #finished = false;
  #cause: unknown;
  #closedDelivered = false;
  #outputClosed = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  start(receiver: LinkReceiver): void {
    if (this.#receiver) throw new Error("This link was already started: a MessageLink delivers to one receiver.");
    this.#receiver = receiver;
    if (this.#finished) queueMicrotask(this.#deliverClosed);
    else this.#schedule();
  }

  send(message: AnyMessage, rawId?: string): void {
    const text = serializeMessage(message, this.#maxBytes, rawId);
    if (!this.#outputClosed) this.peer.#accept(text);
  }

  drain(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    void this.closeOutput();
    this.#finish(undefined, true);
    return Promise.resolve();
  }

  pauseInput(): void {
    this.#paused = true;
  }

  resumeInput(): void {
    this.#paused = false;
    this.#schedule();
  }

  stopInput(): void {
    this.#finish(undefined, true);
  }

  closeOutput(): Promise<void> {
    if (!this.#outputClosed) {
      this.#outputClosed = true;
      this.peer.#endInput();
    }
    return Promise.resolve();
  }

  #accept(text: string): void {
    if (this.#finished || this.#inputEnded) return;
    this.#inbox.push(text);
    this.#schedule();
  }

  #endInput(): void {
    this.#inputEnded = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || !this.#receiver || this.#paused || this.#finished) return;
    this.#scheduled = true;
    queueMicrotask(this.#deliver);
  }

  /** Delivers every queued message in order (one microtask for a whole batch), then a pending end. */
  readonly #deliver = (): void => {
    this.#scheduled = false;
    const receiver = this.#receiver!;
    try {
      while (this.#next < this.#inbox.length && !this.#paused && !this.#finished) {
        const text = this.#inbox[this.#next++]!;
        const value: unknown = JSON.parse(text);
        receiver.message(value, rawIdOf(value, text));
      }
    } catch (error) {
      this.#finish(error);
      return;
    }
    if (this.#next === this.#inbox.length) {
      this.#inbox = [];
      this.#next = 0;
      if (this.#inputEnded) this.#finish(undefined);
    }
  };

  #finish(cause: unknown, deferred = false): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#cause = cause;
    this.#inbox = [];
    this.#next = 0;
    if (!this.#receiver) return; // start() delivers it
    if (deferred) queueMicrotask(this.#deliverClosed);
    else this.#deliverClosed();
  }

  readonly #deliverClosed = (): void => {
    if (this.#closedDelivered) return;
    this.#closedDelivered = true;
    this.#receiver!.closed(this.#cause);
  };
}

/**
 * Two connected in-memory `Stream`s (each with a fast `[LINK]`): what one side sends, the other receives.
 *
 * - Each message is serialized on `send` (unserializable or oversized values throw synchronously, as with
 *   `ndJsonStream`) and parsed on delivery, so the receiver gets a copy.
 * - Delivery is asynchronous and in order: everything sent in one turn is delivered in one microtask.
 * - `close()` on one side delivers what it already sent, then ends the other side's input with `closed()`;
 *   its own input stops and its receiver gets `closed()` too. `drain()` resolves at once.
 */
export function createMemoryPair(options: MemoryPairOptions = {}): [Stream, Stream] {
  const maxBytes = resolveMaxMessageBytes(options.maxMessageBytes);
  const left = new MemoryLink(maxBytes);
  const right = new MemoryLink(maxBytes);
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
