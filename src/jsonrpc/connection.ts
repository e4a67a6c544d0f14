import {
  CANCEL_REQUEST_METHOD,
  type ConnectionOptions,
  type Dispatcher,
  type ResultParser,
  type SendRequestOptions,
} from "./connection-options.js";
import { closedByCall, closedByLink } from "./close-reason.js";
import { classify } from "./envelope.js";
import { answerProblem } from "./frame-problems.js";
import { handled, rejectedHandled } from "./handled.js";
import { IncomingRequest, IncomingRequests } from "./incoming.js";
import type { FrameProblem, LinkReceiver, MessageLink } from "./link.js";
import { InvalidResponseError, type ConnectionClosedError } from "./local-errors.js";
import { defaultLogger, type Logger } from "./logger.js";
import { isRecord, type AnyMessage, type ErrorResponse, type JsonRpcId } from "./messages.js";
import { PendingRequests, type PendingRequest } from "./outgoing.js";
import { answersWithNullId, describeError, errorForPeer, errorForUnsendableResult } from "./replies.js";
import { RequestError } from "./request-error.js";
import { armRequest, settleParsed } from "./request-settling.js";
import { now, TapRegistry, type TapListener } from "./tap.js";

export { CANCEL_REQUEST_METHOD } from "./connection-options.js";
export type { ConnectionOptions, Dispatcher, ResultParser, SendRequestOptions } from "./connection-options.js";

/**
 * A JSON-RPC 2.0 connection over a message link, knowing nothing of ACP.
 *
 * Contracts:
 * - Every incoming request gets exactly one reply, whatever its handler does (returns, throws, returns something
 *   unserializable, or the peer cancels it). Bad input is answered by the book and never closes the connection.
 * - Incoming messages are dispatched synchronously in arrival order: a notification that arrived before a response
 *   reaches its handler before that response's promise resolves. Handlers run concurrently.
 * - `close()`, or the peer going away, rejects every pending request with a `ConnectionClosedError` carrying the
 *   cause, aborts every running handler's signal, and closes the link.
 * - One tap sees every message in both directions with a timestamp.
 */
export class JsonRpcConnection {
  private readonly pending = new PendingRequests();
  private readonly incoming = new IncomingRequests();
  private readonly taps: TapRegistry;
  private readonly logger: Logger;
  private readonly requestTimeoutMs: number | undefined;
  private readonly abortController = new AbortController();
  private readonly closedPromise: Promise<void>;
  private resolveClosed!: () => void;
  private closeError: ConnectionClosedError | undefined;
  /** The link's last `drain()` promise, already marked handled. */
  private lastDrain: Promise<void> | undefined;

  constructor(
    private readonly link: MessageLink,
    private readonly dispatcher: Dispatcher,
    options: ConnectionOptions = {},
  ) {
    this.logger = options.logger ?? defaultLogger;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.taps = new TapRegistry((error) =>
      this.logger.error("a tap listener threw and was removed", describeError(error)),
    );
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
    const receiver: LinkReceiver = {
      message: (value, rawId) => this.receive(value, rawId),
      problem: (problem) => this.receiveProblem(problem),
      closed: (cause) => this.close(closedByLink(cause)),
    };
    link.start(receiver);
  }

  /** Aborted when the connection closes; its reason is the `ConnectionClosedError`. */
  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  /** Resolves once the connection has closed, for whatever reason. */
  get closed(): Promise<void> {
    return this.closedPromise;
  }

  /** True once the connection has closed. */
  get isClosed(): boolean {
    return this.closeError !== undefined;
  }

  /** How many requests this side sent that have no response yet. */
  /** The link's outgoing message size limit in UTF-8 bytes, when it has one (see `MessageLink.maxMessageBytes`). */
  get maxMessageBytes(): number | undefined {
    return this.link.maxMessageBytes;
  }

  get pendingRequestCount(): number {
    return this.pending.size;
  }

  /** How many requests from the peer are still being handled. */
  get runningHandlerCount(): number {
    return this.incoming.size;
  }

  /** Adds a listener that sees every message in both directions; returns a function that removes it. */
  tap(listener: TapListener): () => void {
    return this.taps.add(listener);
  }

  /**
   * Sends a request and resolves with the peer's result (checked by `parse` when given), or rejects with the
   * peer's `RequestError`, or with a local error: `ConnectionClosedError`, `RequestTimeoutError`,
   * `UnserializableValueError`, `MessageTooLargeError`, `InvalidResponseError`. The promise is marked handled: not
   * awaiting it never crashes the process with an unhandled rejection (as in the official SDK).
   */
  request<T = unknown>(
    method: string,
    params?: unknown,
    options?: SendRequestOptions,
    parse?: ResultParser<T>,
  ): Promise<T> {
    if (this.closeError) return rejectedHandled(this.closeError);
    const signal = options?.cancellationSignal ?? options?.signal;
    const id = this.pending.allocateId();
    const message: AnyMessage =
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    try {
      this.send(message);
    } catch (error) {
      return rejectedHandled(error);
    }
    // Marked handled when it is rejected, not before: a request that succeeds pays nothing for it.
    const made: { promise?: Promise<T>; rejectedEarly?: true } = {};
    const promise = new Promise<T>((resolve, reject) => {
      const rejectHandled = (error: unknown) => {
        if (made.promise === undefined) made.rejectedEarly = true;
        else handled(made.promise);
        reject(error);
      };
      const entry: PendingRequest = {
        method,
        arrived: options?.onResponse,
        resolve:
          parse === undefined
            ? (resolve as (value: unknown) => void)
            : (raw) => settleParsed(this.logger, method, raw, parse, resolve, rejectHandled),
        reject: rejectHandled,
      };
      const timeoutMs = options?.timeoutMs ?? this.requestTimeoutMs;
      if (timeoutMs !== undefined || signal !== undefined)
        armRequest(this.pending, (requestId) => this.cancelRequest(requestId), {
          id,
          method,
          entry,
          timeoutMs,
          signal,
          stopWaitingOnCancel: options?.stopWaitingOnCancel,
        });
      this.pending.add(id, entry);
    });
    made.promise = promise;
    return made.rejectedEarly ? handled(promise) : promise;
  }

  /**
   * Sends a notification. Resolves when the link has room again (backpressure); rejects only if it could not be
   * sent. Marked handled, as `request`'s promise is.
   */
  notify(method: string, params?: unknown): Promise<void> {
    if (this.closeError) return rejectedHandled(this.closeError);
    try {
      this.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
    } catch (error) {
      return rejectedHandled(error);
    }
    // Links hand out one shared promise while nothing changes: mark each new one once, not on every notification.
    const drained = this.link.drain();
    if (drained !== this.lastDrain) this.lastDrain = handled(drained);
    return drained;
  }

  /** Asks the peer to cancel a request this side sent (`$/cancel_request`). */
  cancelRequest(id: JsonRpcId): void {
    if (this.closeError) return;
    try {
      this.send({ jsonrpc: "2.0", method: CANCEL_REQUEST_METHOD, params: { requestId: id } });
    } catch (error) {
      this.logger.warn("could not send $/cancel_request", describeError(error));
    }
  }

  /**
   * Closes the connection: rejects every pending request with a `ConnectionClosedError` whose cause is `reason`,
   * aborts every running handler, flushes and closes the link. Idempotent.
   */
  close(reason?: unknown): void {
    if (this.closeError) return;
    const error = closedByCall(reason);
    this.closeError = error;
    this.logger.debug("connection closed", { reason: error.message, pending: this.pending.methods() });
    this.abortController.abort(error);
    this.pending.rejectAll(error);
    this.incoming.abortAll(error);
    this.link.close().then(this.resolveClosed, (linkError) => {
      this.logger.debug("the link failed while closing", describeError(linkError));
      this.resolveClosed();
    });
  }

  private send(message: AnyMessage, rawId?: string): void {
    if (this.taps.active)
      this.taps.emit(
        rawId === undefined
          ? { direction: "out", time: now(), message }
          : { direction: "out", time: now(), message, rawId },
      );
    if (rawId === undefined) this.link.send(message);
    else this.link.send(message, rawId);
  }

  private receive(value: unknown, rawId?: string): void {
    if (this.closeError) return;
    if (this.taps.active)
      this.taps.emit(
        rawId === undefined
          ? { direction: "in", time: now(), message: value }
          : { direction: "in", time: now(), message: value, rawId },
      );
    const envelope = classify(value);
    switch (envelope.kind) {
      case "notification":
        return this.receiveNotification(envelope.method, envelope.params);
      case "request":
        return this.receiveRequest(envelope.id, envelope.method, envelope.params, rawId);
      case "response":
        return this.receiveResponse(envelope.id, envelope.value);
      case "invalid":
        this.logger.warn("the peer sent an invalid JSON-RPC message", { reason: envelope.reason });
        return this.sendError(
          envelope.id,
          RequestError.invalidRequest(undefined, envelope.reason).toErrorResponse(),
          rawId,
        );
    }
  }

  private receiveNotification(method: string, params: unknown): void {
    if (method === CANCEL_REQUEST_METHOD) {
      const requestId = isRecord(params) ? params.requestId : undefined;
      this.incoming
        .get(requestId as JsonRpcId)
        ?.abort(RequestError.requestCancelled(undefined, "the peer cancelled the request"));
      return;
    }
    try {
      const result = this.dispatcher.notification(method, params);
      if (result !== undefined && typeof (result as Promise<void>).then === "function") {
        (result as Promise<void>).then(undefined, (error) => this.notificationFailed(method, error));
      }
    } catch (error) {
      this.notificationFailed(method, error);
    }
  }

  private notificationFailed(method: string, error: unknown): void {
    // Params can carry secrets (MCP server env, headers): log the method and the error only.
    this.logger.error("a notification handler failed", { method, ...describeError(error) });
  }

  private receiveRequest(id: string | number | null, method: string, params: unknown, rawId: string | undefined): void {
    if (this.incoming.has(id)) {
      this.logger.warn("the peer reused the id of a request still running", { id, method });
      return this.sendError(
        id,
        RequestError.invalidRequest(
          { id },
          `request id ${rawId ?? JSON.stringify(id)} is already in use`,
        ).toErrorResponse(),
        rawId,
      );
    }
    const request = new IncomingRequest(id, method, rawId);
    this.incoming.add(request);
    let result: unknown;
    try {
      result = this.dispatcher.request(method, params, request);
    } catch (error) {
      return this.answerError(request, error);
    }
    if (result !== null && typeof result === "object" && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(
        (value) => this.answer(request, value),
        (error) => this.answerError(request, error),
      );
    } else {
      this.answer(request, result);
    }
  }

  private answer(request: IncomingRequest, result: unknown): void {
    if (request.answered) return;
    request.answered = true;
    this.incoming.delete(request);
    if (this.closeError) return;
    try {
      this.send({ jsonrpc: "2.0", id: request.id, result: result === undefined ? null : result }, request.rawId);
    } catch (error) {
      this.logger.error("could not send a handler's result; answered with an error instead", {
        method: request.method,
        ...describeError(error),
      });
      this.sendError(request.id, errorForUnsendableResult(error), request.rawId);
    }
  }

  private answerError(request: IncomingRequest, error: unknown): void {
    if (request.answered) return;
    request.answered = true;
    this.incoming.delete(request);
    if (!(error instanceof RequestError) && !request.cancelled) {
      this.logger.error("a request handler failed", { method: request.method, ...describeError(error) });
    }
    if (this.closeError) return;
    if (answersWithNullId(error)) return this.sendError(null, errorForPeer(error, false));
    this.sendError(request.id, errorForPeer(error, request.cancelled), request.rawId);
  }

  private sendError(id: JsonRpcId, error: ErrorResponse, rawId?: string): void {
    if (this.closeError) return;
    try {
      this.send({ jsonrpc: "2.0", id, error }, rawId);
    } catch (sendError) {
      this.logger.error("could not send an error response", describeError(sendError));
    }
  }

  private receiveResponse(id: JsonRpcId, value: Record<string, unknown>): void {
    const pending = this.pending.take(id);
    if (pending === undefined) {
      // A response to a request of ours that already settled (timed out, abandoned on cancel) is expected; one to an
      // id we never sent is the peer's bug, reported as the official SDK does ("Got response to unknown request").
      if (this.pending.wasSent(id))
        this.logger.debug("ignored a late response to a request that already settled", { id });
      else this.logger.warn("got a response to an unknown request id; ignored it", { id });
      return;
    }
    if (pending.arrived !== undefined) {
      try {
        pending.arrived();
      } catch (error) {
        this.logger.error("an onResponse callback threw", describeError(error));
      }
    }
    const hasResult = "result" in value;
    const error = value.error;
    if (!hasResult && isRecord(error) && typeof error.code === "number" && typeof error.message === "string") {
      pending.reject(RequestError.fromErrorResponse(error as ErrorResponse));
    } else if (hasResult && error === undefined) {
      pending.resolve(value.result);
    } else {
      const detail = hasResult ? "it has both result and error" : "it has neither a result nor a well-formed error";
      this.logger.warn("the peer sent a malformed response", { id, method: pending.method, detail });
      pending.reject(new InvalidResponseError(pending.method, detail));
    }
  }

  private receiveProblem(problem: FrameProblem): void {
    if (this.closeError) return;
    if (this.taps.active) this.taps.emit({ direction: "in", time: now(), problem });
    answerProblem(problem, {
      logger: this.logger,
      sendError: (id, error, rawId) => this.sendError(id, error, rawId),
      take: (id) => this.pending.take(id),
    });
  }
}
