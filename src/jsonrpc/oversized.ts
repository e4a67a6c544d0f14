import { sketchEnvelope } from "./envelope-scanner.js";
import type { FrameProblem } from "./link.js";
import { MessageTooLargeError } from "./local-errors.js";
import type { Logger } from "./logger.js";
import type { ErrorResponse, JsonRpcId } from "./messages.js";
import { RequestError } from "./request-error.js";

/** What answering an oversized frame needs from the engine. */
export interface OversizedActions {
  logger: Logger;
  /** Answers the peer's request `id` with `error` (its exact id text `rawId` when given). */
  refuse(id: JsonRpcId, error: ErrorResponse, rawId: string | undefined): void;
  /** Rejects this side's pending request `id` (no-op when none waits on it). */
  reject(id: JsonRpcId, error: MessageTooLargeError): void;
}

/**
 * Tells whoever waits on a frame that was too large to read: a request from the peer is answered with -32600
 * (saying the size, the limit and what to do), a response to one of our requests rejects it with
 * `MessageTooLargeError`; a notification is only logged. The frame's envelope comes from the transport's scan of
 * the whole frame (its id is found wherever it stood) or, failing that, from its first bytes.
 */
export function answerOversized(
  problem: Extract<FrameProblem, { kind: "too_large" }>,
  actions: OversizedActions,
): void {
  const envelope = problem.envelope ?? sketchEnvelope(problem.head);
  const tooLarge = new MessageTooLargeError(problem.limit, problem.bytes, "incoming");
  actions.logger.warn(tooLarge.message, {
    bytes: problem.bytes,
    limit: problem.limit,
    kind: envelope.kind,
    ...(envelope.method !== undefined ? { method: envelope.method } : {}),
    ...(envelope.id !== undefined ? { id: envelope.rawId ?? envelope.id } : {}),
  });
  if (envelope.id === undefined) return;
  if (envelope.kind === "request") {
    const what = envelope.method !== undefined ? `the ${JSON.stringify(envelope.method)} request` : "the request";
    const message =
      `${what} is ${problem.bytes} bytes, over this side's ${problem.limit}-byte message limit; ` +
      "send less in one message (e.g. split the content), or raise the receiver's maxMessageBytes";
    actions.refuse(
      envelope.id,
      RequestError.invalidRequest(
        { maxMessageBytes: problem.limit, messageBytes: problem.bytes },
        message,
      ).toErrorResponse(),
      envelope.rawId,
    );
    return;
  }
  // A response, or a frame whose kind could not be told: whatever waits on that id is told.
  actions.reject(envelope.id, tooLarge);
}
