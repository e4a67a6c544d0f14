import { ConnectionClosedError, LocalError } from "./local-errors.js";
import { RequestError } from "./request-error.js";

/**
 * The `ConnectionClosedError` for each way a connection closes: `close(reason)` called on this side, or the link
 * reporting its end (`cause` undefined: the peer ended its input; otherwise the transport failed with `cause`).
 */
export function closedByCall(reason: unknown): ConnectionClosedError {
  if (reason instanceof ConnectionClosedError) return reason;
  return new ConnectionClosedError(reason === undefined ? "close() was called" : reasonText(reason), reason);
}

/** See `closedByCall`. */
export function closedByLink(cause: unknown): ConnectionClosedError {
  return cause === undefined
    ? new ConnectionClosedError("the peer closed the connection (end of input)")
    : new ConnectionClosedError(`the transport failed: ${reasonText(cause)}`, cause);
}

function reasonText(reason: unknown): string {
  if (reason instanceof LocalError || reason instanceof RequestError) return reason.message;
  if (reason instanceof Error)
    return reason.name === "Error" || reason.message.length > 0 ? reason.message : reason.name;
  return String(reason);
}
