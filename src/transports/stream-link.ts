/**
 * `linkFromStream`: the engine's way into any `Stream`. acpkit streams hand over their fast link; foreign
 * `{ readable, writable }` message streams (the official SDK's `ndJsonStream`, a user's own) are adapted.
 */
import { LINK, type LinkReceiver, type MessageLink, type Stream } from "../jsonrpc/link.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
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
 *   official SDK's notifications do). `close()` waits for the writes,
 *   closes the writable and cancels the readable; idempotent.
 */
export function linkFromStream(stream: Stream): MessageLink {
  const own = stream[LINK];
  if (own) return own;
  return new ForeignStreamLink(stream);
}

class ForeignStreamLink implements MessageLink {
  readonly #stream: Stream;
  #writer: WritableStreamDefaultWriter<AnyMessage> | undefined;
  #reader: ReadableStreamDefaultReader<AnyMessage> | undefined;
  #receiver: LinkReceiver | undefined;
  #finished = false;
  #cause: unknown;
  #closedDelivered = false;
  #writeFailed = false;
  #writeError: unknown;
  #lastWrite: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(stream: Stream) {
    this.#stream = stream;
  }

  start(receiver: LinkReceiver): void {
    if (this.#receiver) throw new Error("This link was already started: a MessageLink delivers to one receiver.");
    this.#receiver = receiver;
    if (this.#finished) {
      queueMicrotask(() => this.#deliverClosed());
      return;
    }
    this.#reader = this.#stream.readable.getReader();
    void this.#pump(this.#reader);
  }

  send(message: AnyMessage): void {
    // Serialize only to refuse what the foreign stream could not carry (no size limit here: that is its business).
    serializeMessage(message, Number.POSITIVE_INFINITY);
    if (this.#writeFailed || this.#closing) return;
    this.#writer ??= this.#stream.writable.getWriter();
    this.#lastWrite = this.#writer.write(message).catch((error: unknown) => {
      if (this.#writeFailed) return;
      this.#writeFailed = true;
      this.#writeError = error;
      this.#finish(error);
    });
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

  close(): Promise<void> {
    this.#closing ??= this.#closeNow();
    return this.#closing;
  }

  async #closeNow(): Promise<void> {
    this.#finish(undefined, true);
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
        const { value, done } = await reader.read();
        if (done || this.#finished) break;
        this.#receiver!.message(value);
      }
    } catch (error) {
      cause = error;
    }
    this.#finish(cause);
  }

  #finish(cause: unknown, deferred = false): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#cause = cause;
    if (this.#reader) this.#reader.cancel().catch(ignore);
    else this.#stream.readable.cancel().catch(ignore);
    if (!this.#receiver) return; // start() delivers it
    if (deferred) queueMicrotask(() => this.#deliverClosed());
    else this.#deliverClosed();
  }

  #deliverClosed(): void {
    if (this.#closedDelivered) return;
    this.#closedDelivered = true;
    this.#receiver!.closed(this.#cause);
  }
}
