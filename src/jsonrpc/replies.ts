import { LocalError, MessageTooLargeError, UnserializableValueError } from "./local-errors.js";
import type { ErrorResponse } from "./messages.js";
import { RequestError } from "./request-error.js";

/**
 * Turns whatever a request handler threw into the error the peer sees. A `RequestError` goes out as it is;
 * a cancelled request answers -32800; anything else is -32603 with no internals (no message, no stack):
 * the real error goes to the logger.
 */
export function errorForPeer(error: unknown, cancelled: boolean): ErrorResponse {
  if (error instanceof RequestError) return error.toErrorResponse();
  if (cancelled) return RequestError.requestCancelled().toErrorResponse();
  return RequestError.internalError(undefined, "the handler failed; details are in the handling side's log").toErrorResponse();
}

/** The error sent instead of a result that could not be sent (unserializable or too large). */
export function errorForUnsendableResult(error: unknown): ErrorResponse {
  if (error instanceof MessageTooLargeError) {
    return RequestError.internalError(
      { maxMessageBytes: error.maxMessageBytes, messageBytes: error.messageBytes },
      `the result is too large to send (${error.messageBytes} bytes, limit ${error.maxMessageBytes})`,
    ).toErrorResponse();
  }
  if (error instanceof UnserializableValueError) {
    return RequestError.internalError(undefined, "the handler returned a value that cannot be serialized to JSON").toErrorResponse();
  }
  return RequestError.internalError().toErrorResponse();
}

/** A short, secret-free description of an error for log lines. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof RequestError) return { code: error.code, message: error.message };
  if (error instanceof LocalError) return { kind: error.kind, message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { error: String(error) };
}
