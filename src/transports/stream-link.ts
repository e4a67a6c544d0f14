/**
 * `linkFromStream`: the engine's way into any `Stream`. acpkit streams hand over their fast link; foreign
 * `{ readable, writable }` message streams (the official SDK's `ndJsonStream`, a user's own) are adapted.
 */
import { LINK, type LinkReceiver, type MessageLink, type Stream } from "../jsonrpc/link.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import {
  isReply,
  OutputLedger,
  refuseOverBacklog,
  resolveMaxBufferedBytes,
  type BackpressureOptions,
} from "./backpressure.js";
import { DEFAULT_WRITE_HIGH_WATER_MARK } from "./frame-writer.js";
import { LinkLifecycle } from "./link-lifecycle.js";
import { serializeMessage } from "./serialize.js";

function ignore(): void {}

/**
 * A `MessageLink` for `stream`: `stream[LINK]` when it has one, otherwise an adapter over its web streams.
 *
 * The adapter's contract:
 * - `send` checks synchronously that the message serializes (throwing `UnserializableValueError`, nothing
 *   written), then writes it to the stream's writer, which it holds, in order. A failed write ends the link
 *   with `closed(error)`; later sends are dropped silently.
 * - Every value read from `readable` is passed to `receiver.message`, objects or not (the engine validates).
 *   The end of `readable` is `closed()`, a read error `closed(error)`; `closed` is delivered once.
 * - `drain()` resolves once the writes so far are done, and rejects with the write error when one failed (as the
 *   official SDK's notifications do), so an awaited send never runs ahead of a peer that does not read.
 *   `close()` waits for the writes, closes the writable and cancels the readable; idempotent.
 * - Backpressure as on every acpkit link (`backpressure.ts`): a request or notification sent while
 *   `maxBufferedBytes` of text waits on unsettled writes throws `OutputBacklogError`; while replies wait above the
 *   high-water mark, reading pauses.
 */
export function linkFromStream(stream: Stream, options: BackpressureOptions = {}): MessageLink {
  const own = stream[LINK];
  if (own) return own;
  return new ForeignStreamLink(stream, options);
}

class ForeignStreamLink implements MessageLink {
  readonly #stream: Stream;
  #writer: WritableStreamDefaultWriter<AnyMessage> | undefined;
  #reader: ReadableStreamDefaultReader<AnyMessage> | undefined;
  /** The receiver, and the end of the incoming side: stop reading (release the pump first). */
  readonly #life = new LinkLifecycle(() => {
    this.#release();
    if (this.#reader) this.#reader.cancel().catch(ignore);
    else this.#stream.readable.cancel().catch(ignore);
  });
  #writeFailed = false;
  #writeError: unknown;
  #lastWrite: Promise<void> = Promise.resolve();
  readonly #ledger = new OutputLedger();
  readonly #highWaterMark: number;
  readonly #maxBuffered: number;
  /** Set while replies are backed up: the pump waits for it. */
  #held: { promise: Promise<void>; release: () => void } | undefined;

  constructor(stream: Stream, options: BackpressureOptions) {
    this.#stream = stream;
    this.#highWaterMark = options.writeHighWaterMark ?? DEFAULT_WRITE_HIGH_WATER_MARK;
    this.#maxBuffered = resolveMaxBufferedBytes(options.maxBufferedBytes);
  }

  start(receiver: LinkReceiver): void {
    if (!this.#life.start(receiver)) return;
    this.#reader = this.#stream.readable.getReader();
    void this.#pump(this.#reader);
  }

  send(message: AnyMessage): void {
    // Serialize to refuse what the foreign stream could not carry (no size limit here: that is its business),
    // and to count what waits on the writer.
    const units = serializeMessage(message, Number.POSITIVE_INFINITY).length;
    if (this.#writeFailed || this.#life.closing) return;
    const reply = isReply(message);
    if (!reply) refuseOverBacklog(message, this.#ledger.pending, this.#maxBuffered);
    this.#writer ??= this.#stream.writable.getWriter();
    this.#ledger.enter(units, reply);
    this.#lastWrite = this.#writer.write(message).then(
      () => this.#settled(units),
      (error: unknown) => {
        this.#settled(units);
        if (this.#writeFailed) return;
        this.#writeFailed = true;
        this.#writeError = error;
        this.#life.finish(error);
      },
    );
    if (reply && this.#ledger.replyPending >= this.#highWaterMark && this.#held === undefined) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      this.#held = { promise, release };
    }
  }

  /**
   * Waits for the writes handed over so far, as the official SDK does with foreign streams: a notification whose
   * write failed rejects with the write's error. (acpkit's own links resolve at their high-water mark instead.)
   */
  async drain(): Promise<void> {
    if (!this.#writer) return;
    await this.#lastWrite;
    if (this.#writeFailed) throw this.#writeError;
  }

  /** A write settled (written or failed): its text no longer waits. */
  #settled(units: number): void {
    this.#ledger.leave(units);
    if (this.#ledger.pending >= this.#highWaterMark && !this.#writeFailed) return;
    this.#release();
  }

  #release(): void {
    const held = this.#held;
    this.#held = undefined;
    held?.release();
  }

  close(): Promise<void> {
    return this.#life.close(() => this.#closeNow());
  }

  async #closeNow(): Promise<void> {
    this.#life.finishLater(undefined);
    await this.#lastWrite;
    if (!this.#writeFailed) {
      this.#writer ??= this.#stream.writable.getWriter();
      await this.#writer.close().catch(ignore);
    }
  }

  async #pump(reader: ReadableStreamDefaultReader<AnyMessage>): Promise<void> {
    let cause: unknown;
    try {
      for (;;) {
        // Our replies are backed up: the peer is not reading them. Read nothing more until it does.
        if (this.#held !== undefined) await this.#held.promise;
        if (this.#life.finished) break;
        const { value, done } = await reader.read();
        if (done || this.#life.finished) break;
        this.#life.receiver!.message(value);
      }
    } catch (error) {
      cause = error;
    }
    this.#life.finish(cause);
  }
}
