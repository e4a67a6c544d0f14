import type { ResultParser } from "./connection-options.js";
import { InvalidResponseError, LocalError, RequestTimeoutError } from "./local-errors.js";
import type { Logger } from "./logger.js";
import type { PendingRequest, PendingRequests } from "./outgoing.js";
import { RequestError } from "./request-error.js";

/**
 * How a request this side sent settles other than by its response's arrival: its timeout, its caller's abort
 * signal, and the check of the result it did get.
 */

/** What arming a request's timeout and abort signal needs from the engine. */
export interface ArmedRequest {
  id: number;
  method: string;
  entry: PendingRequest;
  timeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  stopWaitingOnCancel: boolean | undefined;
}

/**
 * Sets the request's timeout and abort listener (both cleared by `entry.cleanup` when it settles): a timeout sends
 * `$/cancel_request` (through `cancel`) and rejects with `RequestTimeoutError`; an abort sends the cancel and, with
 * `stopWaitingOnCancel`, rejects at once with the -32800 error instead of waiting for the peer's answer.
 */
export function armRequest(pending: PendingRequests, cancel: (id: number) => void, request: ArmedRequest): void {
  const { id, method, entry, timeoutMs, signal, stopWaitingOnCancel } = request;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    cancel(id);
    if (stopWaitingOnCancel) pending.take(id)?.reject(RequestError.requestCancelled(signal?.reason));
  };
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => {
      if (!pending.has(id)) return;
      cancel(id);
      pending.take(id)?.reject(new RequestTimeoutError(method, timeoutMs));
    }, timeoutMs);
  }
  entry.cleanup = () => {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };
  // An already-aborted signal still sends the request, then the cancel, as the official SDK does: the peer's
  // answer (e.g. a permission request's "cancelled" outcome) is the result.
  if (signal?.aborted) queueMicrotask(onAbort);
  else signal?.addEventListener("abort", onAbort, { once: true });
}

/**
 * Resolves with the result `parse` makes of `raw`, or rejects: with the parser's own `LocalError` when it threw one
 * (a protocol version this side cannot speak), otherwise with `InvalidResponseError` (logged as a warning).
 */
export function settleParsed<T>(
  logger: Logger,
  method: string,
  raw: unknown,
  parse: ResultParser<T>,
  resolve: (v: T) => void,
  reject: (e: unknown) => void,
): void {
  let value: T;
  try {
    value = parse(raw);
  } catch (error) {
    if (error instanceof LocalError) {
      reject(error);
      return;
    }
    const detail = error instanceof Error ? error.message : String(error);
    logger.warn("the peer sent an invalid response", { method, detail });
    reject(new InvalidResponseError(method, detail, (error as { issues?: unknown }).issues));
    return;
  }
  resolve(value);
}
