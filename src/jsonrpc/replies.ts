import { LocalError, MessageTooLargeError, UnserializableValueError } from "./local-errors.js";
import type { ErrorResponse } from "./messages.js";
import { RequestError } from "./request-error.js";

/**
 * Turns whatever a request handler threw into the error the peer sees, as the official SDK does: a `RequestError`
 * goes out as it is; a cancelled request answers -32800; a zod error (a handler validating with zod) answers -32602
 * with its formatted issues; anything else is -32603 "Internal error" whose `data` is `{ details: message }` (or the
 * message itself when it is JSON, or `{}` without one). Never a stack: the whole error goes to the logger.
 */
export function errorForPeer(error: unknown, cancelled: boolean): ErrorResponse {
  if (error instanceof RequestError) return error.toErrorResponse();
  if (cancelled) return RequestError.requestCancelled().toErrorResponse();
  if (isZodError(error)) return RequestError.invalidParams(error.format()).toErrorResponse();
  const details = errorMessage(error);
  if (!details) return RequestError.internalError({}).toErrorResponse();
  try {
    return RequestError.internalError(JSON.parse(details)).toErrorResponse();
  } catch {
    return RequestError.internalError({ details }).toErrorResponse();
  }
}

function errorMessage(error: unknown): string | undefined {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message;
  }
  return undefined;
}

function isZodError(error: unknown): error is { format(): unknown } {
  const e = error as { name?: unknown; issues?: unknown; format?: unknown } | null;
  return (
    typeof e === "object" &&
    e !== null &&
    e.name === "ZodError" &&
    Array.isArray(e.issues) &&
    typeof e.format === "function"
  );
}

const nullIdErrors = new WeakSet<RequestError>();

/**
 * Marks `error` as the answer to a request whose id this side cannot use (a protocol that allows fewer ids than
 * JSON-RPC does, such as ACP v2's strings and integers): thrown by a handler (or a dispatch rule), it is sent with
 * `id: null`, as JSON-RPC requires when a request's id cannot be determined. Returns `error`.
 */
export function answerWithNullId(error: RequestError): RequestError {
  nullIdErrors.add(error);
  return error;
}

/** Whether `error` was marked by `answerWithNullId`. */
export function answersWithNullId(error: unknown): boolean {
  return error instanceof RequestError && nullIdErrors.has(error);
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
    return RequestError.internalError(
      undefined,
      "the handler returned a value that cannot be serialized to JSON",
    ).toErrorResponse();
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
