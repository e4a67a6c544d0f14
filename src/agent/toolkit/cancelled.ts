/**
 * How a cancelled prompt turn shows up in code: `TurnCancelledError` (an `AbortError`), and `isAbortError`, which
 * the turn runner uses to answer `{ stopReason: "cancelled" }` instead of an error, as the spec requires.
 * @see https://agentclientprotocol.com/protocol/prompt-turn#cancellation
 */
import { RequestError } from "../../jsonrpc/index.js";

/**
 * Thrown into a turn's code when the turn was cancelled (by `session/cancel`, `session/close`, or a cancelled
 * permission).
 */
export class TurnCancelledError extends Error {
  override readonly name = "AbortError";
  constructor(message = "the prompt turn was cancelled") {
    super(message);
  }
}

/** Whether `error` means "aborted": an `AbortError` (DOM or ours), or a -32800 request-cancelled `RequestError`. */
export function isAbortError(error: unknown): boolean {
  if (error instanceof RequestError) return error.code === -32800;
  return error instanceof Error && error.name === "AbortError";
}
