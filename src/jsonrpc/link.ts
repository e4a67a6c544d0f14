import type { AnyMessage, JsonRpcId } from "./messages.js";

/**
 * Why an incoming frame did not become a message. Reported by a transport, answered by the engine:
 * - `parse`: the frame is not JSON. `looksLikeJson` is true when it starts like JSON (`{` or `[`), which the
 *   engine answers with -32700; other lines (an agent logging to stdout) are only logged.
 * - `too_large`: the frame exceeded the size limit and was skipped without being buffered. `head` holds its
 *   first bytes so the engine can tell whose request or response it was.
 * - `lost`: the responses to the requests `ids` (sent by this side) can no longer arrive, because the way back
 *   broke under the link (a remote transport's stream closed, the link was re-established). `detail` says why,
 *   `cause` is the underlying error if any. The engine rejects whoever waits with a `ResponseLostError`.
 */
export type FrameProblem =
  | { kind: "parse"; detail: string; preview: string; looksLikeJson: boolean }
  | { kind: "too_large"; bytes: number; limit: number; head: string }
  | { kind: "lost"; ids: JsonRpcId[]; detail: string; cause?: unknown };

/** What the engine hands a link to receive from it. */
export interface LinkReceiver {
  /** One parsed JSON value from the peer (any JSON value: the engine validates the envelope). */
  message(value: unknown): void;
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
   */
  send(message: AnyMessage): void;
  /** Resolves once queued output is below the link's high-water mark (backpressure for senders that await). */
  drain(): Promise<void>;
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
