/**
 * The SSE GET streams of one Streamable HTTP connection: the connection stream, and one stream per session,
 * each read to its end, each event parsed and handed on in order. The routing decisions come from `HttpRoutes`.
 *
 * Contracts:
 * - The connection stream ending, or any GET refused with a status other than 409, or a read that breaks off,
 *   ends the transport (`fail`) with a `TransportFailedError` that says which stream and why.
 * - A session stream refused with 409 fails that session only; one that ends loses its waiting requests
 *   (`lost`), and is opened again by the next message for the session.
 * - A response on the connection stream to a session-scoped request (`session/load`) is handed on after the input
 *   already received on other streams, so the history the session stream carried comes first.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (GET streams, routing)
 */
import type { FrameProblem } from "../../jsonrpc/link.js";
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import type { RequestError } from "../../jsonrpc/request-error.js";
import { readEventStream } from "./event-stream-reader.js";
import {
  failureAsRequestError,
  failureAsTransportError,
  readFailure,
  type HttpEndpoint,
  type HttpFailure,
} from "./http-endpoint.js";
import { EVENT_STREAM_MIME_TYPE, HEADER_CONNECTION_ID, HEADER_SESSION_ID } from "../http-protocol.js";
import type { HttpRoutes } from "./http-routes.js";

/** What the streams need from the link that owns them. */
export interface EventStreamOwner {
  readonly endpoint: HttpEndpoint;
  readonly maxBytes: number;
  readonly routes: HttpRoutes;
  /** True once the link has ended: nothing more is delivered. */
  readonly finished: boolean;
  /** A promise while the consumer is paused. */
  paused(): Promise<void> | undefined;
  /** A message and its exact text. */
  message(value: unknown, text: string): void;
  problem(problem: FrameProblem): void;
  /** Ends the transport. */
  fail(error: Error): void;
}

interface SessionStream {
  ready: Promise<void>;
  abort: AbortController;
}

/** Resolves after the I/O already received has been processed (a macrotask turn). */
function afterPendingInput(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** See the file comment. */
export class HttpEventStreams {
  readonly #owner: EventStreamOwner;
  /** Aborted when the link stops reading: every stream stops. */
  readonly #stopped: AbortSignal;
  readonly #sessions = new Map<string, SessionStream>();
  #connectionId = "";

  constructor(owner: EventStreamOwner, stopped: AbortSignal) {
    this.#owner = owner;
    this.#stopped = stopped;
  }

  /** Opens and reads the connection stream; the transport fails when it ends. */
  async openConnectionStream(connectionId: string): Promise<void> {
    this.#connectionId = connectionId;
    const what = "the connection's event stream";
    try {
      const response = await this.#open({ [HEADER_CONNECTION_ID]: connectionId }, this.#stopped, what);
      if (response === undefined) return;
      await this.#read(response, undefined, this.#stopped);
      if (!this.#owner.finished)
        this.#owner.fail(
          new TransportFailedError(`The ACP server closed ${what}: the server went away or ended the connection.`),
        );
    } catch (error) {
      if (!this.#owner.finished) this.#owner.fail(asTransportError(error, what, this.#owner.endpoint.url));
    }
  }

  /** The session's stream, opened once; resolves when the server has answered the GET (rejects when it refused). */
  session(sessionId: string): Promise<void> {
    const existing = this.#sessions.get(sessionId);
    if (existing !== undefined) return existing.ready;
    const what = `the event stream of session ${sessionId}`;
    const abort = new AbortController();
    const onStop = () => abort.abort();
    this.#stopped.addEventListener("abort", onStop, { once: true });
    let opened!: () => void;
    let refused!: (error: unknown) => void;
    const ready = new Promise<void>((resolve, reject) => ((opened = resolve), (refused = reject)));
    ready.catch(() => {});
    const entry: SessionStream = { ready, abort };
    this.#sessions.set(sessionId, entry);
    void (async () => {
      try {
        const response = await this.#open(
          { [HEADER_CONNECTION_ID]: this.#connectionId, [HEADER_SESSION_ID]: sessionId },
          abort.signal,
          what,
        );
        if (response === undefined) return refused(new TransportFailedError("the link is closed"));
        opened();
        await this.#read(response, sessionId, abort.signal);
        if (!this.#owner.finished && !abort.signal.aborted)
          this.#lose(this.#owner.routes.streamEnded(sessionId), `the ACP server closed ${what}`);
      } catch (error) {
        if (this.#owner.finished || abort.signal.aborted) return refused(error);
        // A 409 fails this session only (until it is reattached); any other refusal ends the transport.
        if (error instanceof HttpRefusal && error.failure.status === 409)
          this.failSession(sessionId, failureAsRequestError(error.failure, what));
        else this.#owner.fail(asTransportError(error, what, this.#owner.endpoint.url));
        refused(error);
      } finally {
        this.#stopped.removeEventListener("abort", onStop);
        if (this.#sessions.get(sessionId) === entry) this.#sessions.delete(sessionId);
      }
    })();
    return ready;
  }

  /** The session cannot be used until it is reattached: its stream closes, its waiting requests are lost. */
  failSession(sessionId: string, error: RequestError): void {
    this.#sessions.get(sessionId)?.abort.abort();
    this.#sessions.delete(sessionId);
    this.#lose(this.#owner.routes.failSession(sessionId, error), error.message, error);
  }

  #lose(ids: ReturnType<HttpRoutes["streamEnded"]>, detail: string, cause?: unknown): void {
    if (ids.length > 0) this.#owner.problem({ kind: "lost", ids, detail, ...(cause === undefined ? {} : { cause }) });
  }

  /** GETs an event stream; undefined when the link finished meanwhile. Rejects with `HttpRefusal` for a status. */
  async #open(headers: Record<string, string>, signal: AbortSignal, what: string): Promise<Response | undefined> {
    const response = await this.#owner.endpoint.request(
      "GET",
      { Accept: EVENT_STREAM_MIME_TYPE, ...headers },
      undefined,
      signal,
    );
    if (this.#owner.finished) {
      void response.body?.cancel().catch(() => {});
      return undefined;
    }
    if (!response.ok) throw new HttpRefusal(await readFailure(response), what);
    if (response.body === null)
      throw new TransportFailedError(`The ACP server answered the GET of ${what} without a body.`);
    return response;
  }

  #read(response: Response, sessionId: string | undefined, signal: AbortSignal): Promise<void> {
    const owner = this.#owner;
    return readEventStream(
      response.body!,
      owner.maxBytes,
      {
        event: (data) => this.#event(data, sessionId),
        tooLarge: (bytes, head) => owner.problem({ kind: "too_large", bytes, limit: owner.maxBytes, head }),
      },
      () => owner.paused(),
      () => owner.finished || signal.aborted,
    );
  }

  #event(data: string, sessionId: string | undefined): void | Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      const trimmed = data.trimStart();
      this.#owner.problem({
        kind: "parse",
        detail: error instanceof Error ? error.message : String(error),
        preview: data.length > 200 ? data.slice(0, 200) : data,
        looksLikeJson: trimmed.startsWith("{") || trimmed.startsWith("["),
      });
      return;
    }
    const decision = this.#owner.routes.arrived(value, sessionId);
    if (decision.newSession !== undefined && !this.#sessions.has(decision.newSession))
      void this.session(decision.newSession).catch(() => {});
    if (!decision.afterPendingInput) return this.#owner.message(value, data);
    return afterPendingInput().then(() => {
      if (!this.#owner.finished) this.#owner.message(value, data);
    });
  }
}

/** An event-stream GET the server refused with an HTTP status. */
export class HttpRefusal extends TransportFailedError {
  constructor(
    readonly failure: HttpFailure,
    what: string,
  ) {
    super(failureAsTransportError(failure, `the GET of ${what}`).message, { status: failure.status });
  }
}

/** A stream failure as a `TransportFailedError` that says which stream broke and why. */
function asTransportError(error: unknown, what: string, url: string): Error {
  if (error instanceof TransportFailedError) return error;
  const cause = (error as { cause?: unknown })?.cause;
  const detail = [error, cause]
    .map((e) => (e instanceof Error ? e.message : e === undefined ? "" : String(e)))
    .filter((t) => t !== "")
    .join(": ");
  return new TransportFailedError(
    `Reading ${what} from ${url} broke off (${detail}): the server went away or the network dropped.`,
    { cause: error },
  );
}
