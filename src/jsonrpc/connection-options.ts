/**
 * The public shapes of a JSON-RPC connection: what it dispatches to, the options of a connection and of one
 * request, and the `$/cancel_request` method name. Apart from the engine (./connection.ts) so that code describing
 * requests does not pull the engine in.
 */
import type { IncomingRequestContext } from "./incoming.js";
import type { Logger } from "./logger.js";
import type { MaybePromise } from "./messages.js";

/** The notification both sides use to cancel a request they sent (LSP-style, named by ACP). */
export const CANCEL_REQUEST_METHOD = "$/cancel_request";

/** Receives what the peer sends. The engine knows no methods: the dispatcher decides. */
export interface Dispatcher {
  /**
   * Handles a request; the return value is the result. Throw `RequestError.methodNotFound(method)` for unknown methods.
   */
  request(method: string, params: unknown, context: IncomingRequestContext): MaybePromise<unknown>;
  /** Handles a notification. Unknown notifications should be ignored. */
  notification(method: string, params: unknown): MaybePromise<void>;
}

/** Options of one outgoing request. */
export interface SendRequestOptions {
  /**
   * Aborting it sends `$/cancel_request`; the call still settles with the peer's answer unless `stopWaitingOnCancel`.
   */
  cancellationSignal?: AbortSignal;
  /** Alias of `cancellationSignal`. */
  signal?: AbortSignal;
  /** When the signal aborts, reject at once with a -32800 `RequestError` instead of waiting for the peer's answer. */
  stopWaitingOnCancel?: boolean;
  /** Reject with `RequestTimeoutError` (and send `$/cancel_request`) when no response came within this many ms. */
  timeoutMs?: number;
  /**
   * Called synchronously when the response (result or error) arrives, before any message that came after it is
   * dispatched: the exact place of the response in the incoming stream.
   */
  onResponse?: () => void;
}

/** Options of a connection. */
export interface ConnectionOptions {
  /**
   * Where the engine's diagnostics go. Default `defaultLogger`: warnings and errors to stderr (never stdout), as the
   * official SDK reports them on `console.error`; pass `silentLogger` for silence.
   */
  logger?: Logger;
  /** Default timeout of every outgoing request, in ms. None by default. */
  requestTimeoutMs?: number;
}

/** Turns a raw result into the typed one, throwing when it is not valid. */
export type ResultParser<T> = (result: unknown) => T;
