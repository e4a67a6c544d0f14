/**
 * The newline-delimited JSON `MessageLink`: a `ByteSource` and a `ByteSink` joined by the line splitter and
 * the coalescing frame writer. `ndJsonStream` builds one over web streams; `src/node/` over Node streams.
 */
import { rawIdOf } from "../jsonrpc/envelope-scanner.js";
import type { FrameProblem, LinkReceiver, MessageLink } from "../jsonrpc/link.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import {
  InputGate,
  isReply,
  refuseOverBacklog,
  resolveMaxBufferedBytes,
  type BackpressureOptions,
} from "./backpressure.js";
import type { ByteSink, ByteSource } from "./bytes.js";
import { DEFAULT_MAX_REQUEST_BURST, DispatchPacer } from "./dispatch-pacer.js";
import { DEFAULT_WRITE_HIGH_WATER_MARK, FrameWriter } from "./frame-writer.js";
import { LineSplitter } from "./line-splitter.js";
import { LinkLifecycle } from "./link-lifecycle.js";
import type { LinkControl } from "./link-streams.js";
import { resolveMaxMessageBytes, serializeFrame } from "./serialize.js";

/** Options of a newline-delimited JSON link. */
export interface NdJsonLinkOptions extends BackpressureOptions {
  /** Largest message accepted or sent, in UTF-8 bytes (newline excluded). Default: `DEFAULT_MAX_MESSAGE_BYTES`. */
  maxMessageBytes?: number;
  /** `drain()` waits while more than this much output is queued; replies above it pause reading. Default 64 KiB. */
  writeHighWaterMark?: number;
  /** Requests delivered per turn of the event loop before the rest of a read waits for the next. Default 256. */
  maxRequestBurst?: number;
}

function isRequest(value: unknown): boolean {
  return typeof value === "object" && value !== null && "method" in value && "id" in value;
}

const PREVIEW_CHARS = 200;

function looksLikeJson(line: string): boolean {
  const first = line.trimStart().charCodeAt(0);
  return first === 0x7b /* { */ || first === 0x5b; /* [ */
}

/**
 * Frames JSON-RPC messages as newline-delimited JSON over a byte source and sink.
 *
 * - Incoming: each line is parsed and handed to `receiver.message` synchronously, in order; a line that is not
 *   JSON becomes a `parse` problem, an oversized one a `too_large` problem, and reading carries on. The end of
 *   input is `closed()`, an input error `closed(error)`. A receiver that throws ends the link with that error.
 * - Outgoing: `send` serializes synchronously (throwing `UnserializableValueError` or `MessageTooLargeError`,
 *   nothing queued) and the frame writer coalesces a turn's messages into one write. A failed write ends the
 *   link with `closed(error)`; later sends are dropped silently.
 * - `close()` flushes and closes the output and stops reading; nothing more is delivered, sends after it are
 *   dropped, and `closed()` follows in a microtask. `receiver.closed` is called exactly once.
 * - Backpressure (`backpressure.ts`): `drain()` waits above `writeHighWaterMark`; a request or notification sent
 *   while `maxBufferedBytes` are queued throws `OutputBacklogError`; while replies are backed up above the
 *   high-water mark the source is paused, until the output drains below it; and at most `maxRequestBurst`
 *   requests are delivered per turn of the event loop (`dispatch-pacer.ts`), so that one read of a flood cannot
 *   start more answers than the hold can stop.
 */
export class NdJsonLink implements MessageLink, LinkControl {
  readonly #source: ByteSource;
  readonly #writer: FrameWriter;
  readonly #splitter: LineSplitter;
  readonly #maxBytes: number;
  readonly #highWaterMark: number;
  readonly #maxBuffered: number;
  readonly #gate: InputGate;
  readonly #pacer: DispatchPacer;
  /** The receiver, and the end of the incoming side: stop reading, drop a partial line. */
  readonly #life = new LinkLifecycle(() => {
    this.#source.cancel();
    this.#splitter.reset();
    this.#pacer.stop();
  });

  constructor(source: ByteSource, sink: ByteSink, options: NdJsonLinkOptions = {}) {
    this.#maxBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.#maxBuffered = resolveMaxBufferedBytes(options.maxBufferedBytes);
    this.#highWaterMark = options.writeHighWaterMark ?? DEFAULT_WRITE_HIGH_WATER_MARK;
    this.#source = source;
    this.#gate = new InputGate(
      () => source.pause(),
      () => source.resume(),
    );
    this.#pacer = new DispatchPacer(
      options.maxRequestBurst ?? DEFAULT_MAX_REQUEST_BURST,
      (held) => this.#gate.pacer(held),
      () => this.#gate.heldByOutput,
    );
    this.#writer = new FrameWriter(sink, this.#highWaterMark, (cause) => this.#life.finish(cause));
    this.#splitter = new LineSplitter(this.#maxBytes, {
      line: (text) => this.#pacer.run(() => this.#line(text)),
      tooLarge: (bytes, head, envelope) =>
        this.#pacer.run(() => {
          this.#problem({ kind: "too_large", bytes, limit: this.#maxBytes, head, envelope });
          return envelope?.id !== undefined;
        }),
    });
  }

  /** Bytes held for an unfinished incoming line (bounded by the size limit). For tests and stats. */
  get bufferedInputBytes(): number {
    return this.#splitter.bufferedBytes;
  }

  /** Output queued or in flight, in UTF-16 units. */
  get pendingOutput(): number {
    return this.#writer.pending;
  }

  /** True while reading is paused because replies to the peer are backed up. */
  get inputHeldByOutput(): boolean {
    return this.#gate.heldByOutput;
  }

  /** The largest message sent or accepted, in UTF-8 bytes. */
  get maxMessageBytes(): number {
    return this.#maxBytes;
  }

  start(receiver: LinkReceiver): void {
    if (!this.#life.start(receiver)) return;
    this.#source.start({
      chunk: (bytes) => this.#splitter.push(bytes),
      end: () => {
        this.#splitter.end();
        // Lines still paced are delivered before the end.
        this.#pacer.whenIdle(() => this.#life.finish(undefined));
      },
      error: (cause) => this.#life.finish(cause),
    });
  }

  send(message: AnyMessage, rawId?: string): void {
    const frame = serializeFrame(message, this.#maxBytes, rawId);
    if (this.#writer.stopped) return;
    const reply = isReply(message);
    if (!reply) refuseOverBacklog(message, this.#writer.pending, this.#maxBuffered);
    this.#writer.push(frame, reply);
    if (reply && this.#writer.replyPending >= this.#highWaterMark) this.#holdInput();
  }

  /** Stops reading until the output is below the high-water mark (the peer is not reading our replies). */
  #holdInput(): void {
    if (this.#gate.heldByOutput || this.#life.finished) return;
    this.#gate.output(true);
    void this.#writer.drain().then(() => {
      if (this.#life.finished) return;
      this.#gate.output(false);
      this.#pacer.outputReleased();
    });
  }

  drain(): Promise<void> {
    return this.#writer.drain();
  }

  /** Flushes and closes the output, stops reading; `closed()` follows in a microtask (never reentrantly). */
  close(): Promise<void> {
    const closing = this.#writer.close();
    this.#life.finishLater(undefined);
    return closing;
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
    return this.#writer.close();
  }

  /** Delivers one line; true when it was a request (owed a reply). */
  #line(text: string): boolean {
    if (this.#life.finished) return false; // closed from inside a receiver call: the rest of the chunk is dropped
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (text.trim() === "") return false; // whitespace only: a blank line
      this.#problem({
        kind: "parse",
        detail: error instanceof Error ? error.message : String(error),
        preview: text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS) : text,
        looksLikeJson: looksLikeJson(text),
      });
      return false;
    }
    this.#life.receiver!.message(value, rawIdOf(value, text));
    return isRequest(value);
  }

  #problem(problem: FrameProblem): void {
    if (!this.#life.finished) this.#life.receiver!.problem(problem);
  }
}
