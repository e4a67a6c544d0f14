import type { EnvelopeSketch } from "./envelope-scanner.js";
import type { AnyMessage, JsonRpcId } from "./messages.js";

/**
 * Why an incoming frame did not become a message. Reported by a transport, answered by the engine:
 * - `parse`: the frame is not JSON. `looksLikeJson` is true when it starts like JSON (`{` or `[`), which the
 *   engine answers with -32700; other lines (an agent logging to stdout) are only logged.
 * - `too_large`: the frame exceeded the size limit and was skipped without being buffered. `envelope`, when the
 *   transport scanned the frame, says whose request or response it was (its id wherever it stood); without it
 *   the engine sketches `head`, the frame's first bytes.
 * - `lost`: the responses to the requests `ids` (sent by this side) can no longer arrive, because the way back
 *   broke under the link (a remote transport's stream closed, the link was re-established). `detail` says why,
 *   `cause` is the underlying error if any. The engine rejects whoever waits with a `ResponseLostError`.
 */
export type FrameProblem =
  | { kind: "parse"; detail: string; preview: string; looksLikeJson: boolean }
  | { kind: "too_large"; bytes: number; limit: number; head: string; envelope?: EnvelopeSketch }
  | { kind: "lost"; ids: JsonRpcId[]; detail: string; cause?: unknown };

/** What the engine hands a link to receive from it. */
export interface LinkReceiver {
  /**
   * One parsed JSON value from the peer (any JSON value: the engine validates the envelope). `rawId` is the exact
   * text of its top-level id when parsing changed it (a number beyond 2^53): the engine echoes it in the reply.
   */
  message(value: unknown, rawId?: string): void;
  /** A frame that did not become a value. The link skips it and carries on. */
  problem(problem: FrameProblem): void;
  /** The incoming side ended: `cause` is undefined on a clean end of input, the error otherwise. */
  closed(cause?: unknown): void;
}

/**
 * A message link: the fast path between the engine and a transport. `ndJsonStream`, the in-memory pair and
 * the other acpkit transports carry one under `LINK`; foreign `{ readable, writable }` streams are adapted.
 */
export interface MessageLink {
  /** Starts delivery to `receiver`. Called once. */
  start(receiver: LinkReceiver): void;
  /**
   * Serializes and queues one message, synchronously. Throws `UnserializableValueError` (nothing queued) when
   * the value cannot be serialized, and `MessageTooLargeError` when it exceeds the outgoing size limit.
   * `rawId`, when given, is written as the message's id instead of `message.id` (the exact text of a peer's id
   * that a JS number cannot hold); links that cannot do so may ignore it.
   */
  send(message: AnyMessage, rawId?: string): void;
  /** Resolves once queued output is below the link's high-water mark (backpressure for senders that await). */
  drain(): Promise<void>;
  /**
   * The largest message `send` accepts, in UTF-8 bytes, when the link has such a limit (acpkit's transports do;
   * an adapted foreign stream does not know one). Lets a sender tell in advance whether something will fit.
   */
  readonly maxMessageBytes?: number;
  /** Flushes what is queued, then closes the outgoing side and stops reading. Idempotent. */
  close(): Promise<void>;
}

/** The property under which acpkit transports expose their `MessageLink`. */
export const LINK: unique symbol = Symbol.for("acpkit.link");

/** A message stream as the official SDK defines it, optionally carrying an acpkit fast link. */
export type Stream = {
  writable: WritableStream<AnyMessage>;
  readable: ReadableStream<AnyMessage>;
  [LINK]?: MessageLink;
};
