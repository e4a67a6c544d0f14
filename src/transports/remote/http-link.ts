/**
 * The Streamable HTTP client as a `MessageLink`: client->agent messages are POSTed in order, agent->client
 * messages arrive on long-lived SSE streams (one for the connection, one per session). Browser-safe.
 *
 * Contracts (transport RFD, and what keeps the official SDK 2.4.0 server working):
 * - `initialize` is POSTed without `Acp-Connection-Id`; its 200 answer carries the response and the connection id.
 *   The connection stream opens then. Every later POST carries the id; the server answers 202.
 * - A message whose params carry a `sessionId` is POSTed with `Acp-Session-Id`, after that session's stream is
 *   open (the GET has its answer headers), so nothing the agent sends for it is missed. A session becomes known,
 *   and its stream opens, on the `session/new` or `session/fork` result that names it, or on the first message
 *   for it (`session/load` or `session/resume` on a new connection open the stream before they are POSTed).
 * - A failed POST of a request answers that request with a JSON-RPC error (`data: { status, body }`, -32600 for
 *   400/413/415/501, else -32603); 401, 403, 404 and 410 also end the transport, as does an unreachable server,
 *   a refused notification or response, and the end of the connection stream. A 409 fails only its session until
 *   it is reattached. A session stream that ends loses its waiting requests (`ResponseLostError`); the next
 *   message for the session opens it again.
 * - `close()` sends what is queued, stops reading, then DELETEs the connection (bounded by `closeTimeoutMs`).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { LinkReceiver, MessageLink } from "../../jsonrpc/link.js";
import type { LocalError } from "../../jsonrpc/local-errors.js";
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import { isResponseMessage, type AnyMessage, type AnyResponse, type JsonRpcId } from "../../jsonrpc/messages.js";
import type { RequestError } from "../../jsonrpc/request-error.js";
import { resolveMaxMessageBytes, serializeMessage } from "../serialize.js";
import { readEventStream } from "./event-stream-reader.js";
import {
  CONNECTION_FATAL_STATUSES,
  failureAsRequestError,
  failureAsTransportError,
  HttpEndpoint,
  readFailure,
  readText,
  type HttpEndpointOptions,
  type HttpFailure,
} from "./http-endpoint.js";
import { EVENT_STREAM_MIME_TYPE, HEADER_CONNECTION_ID, HEADER_SESSION_ID, idKey, JSON_MIME_TYPE } from "./http-protocol.js";
import { HttpRoutes } from "./http-routes.js";

/** Options of the Streamable HTTP link. */
export interface HttpLinkOptions extends HttpEndpointOptions {
  /** Largest message accepted or sent, in UTF-8 bytes. Default 32 MiB. */
  maxMessageBytes?: number;
  /** `drain()` waits while more than this many UTF-16 units of messages are queued for POSTing. Default 256 Ki. */
  writeHighWaterMark?: number;
  /** How long `close()` waits for the DELETE. Default 5000 ms. */
  closeTimeoutMs?: number;
  /** Where the link's diagnostics go. Silent by default. */
  logger?: Logger;
}

interface SessionStream {
  ready: Promise<void>;
  abort: AbortController;
}

interface Queued {
  message: AnyMessage;
  text: string;
}

const SCOPE_CONNECTION = "the connection's event stream";

/** Resolves after the I/O already received has been processed (a macrotask turn). */
function afterPendingInput(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** See the file comment. */
export class HttpLink implements MessageLink {
  readonly #endpoint: HttpEndpoint;
  readonly #maxBytes: number;
  readonly #highWaterMark: number;
  readonly #closeTimeoutMs: number;
  readonly #logger: Logger;
  readonly #routes = new HttpRoutes();
  readonly #sessions = new Map<string, SessionStream>();
  /** Aborts every GET stream (closing, failing). POSTs have their own, aborted only on failure. */
  readonly #readAbort = new AbortController();
  readonly #postAbort = new AbortController();
  #connectionId: string | undefined;
  #receiver: LinkReceiver | undefined;
  #queue: Queued[] = [];
  #queueHead = 0;
  #queuedChars = 0;
  #pumping = false;
  #drainWaiters: Array<() => void> = [];
  #idleWaiters: Array<() => void> = [];
  #paused: { promise: Promise<void>; resume: () => void } | undefined;
  #closing: Promise<void> | undefined;
  #finished = false;
  #cause: unknown;
  #closedDelivered = false;

  constructor(url: string, options: HttpLinkOptions = {}) {
    this.#endpoint = new HttpEndpoint(url, options);
    this.#maxBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.#highWaterMark = options.writeHighWaterMark ?? 256 * 1024;
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 5000;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The connection id the server gave in its `initialize` answer (undefined before). */
  get connectionId(): string | undefined {
    return this.#connectionId;
  }

  /** The endpoint URL. */
  get url(): string {
    return this.#endpoint.url;
  }

  start(receiver: LinkReceiver): void {
    if (this.#receiver) throw new Error("This link was already started: a MessageLink delivers to one receiver.");
    this.#receiver = receiver;
    if (this.#finished) queueMicrotask(() => this.#deliverClosed());
  }

  send(message: AnyMessage): void {
    const text = serializeMessage(message, this.#maxBytes);
    if (this.#finished || this.#closing) return;
    this.#queue.push({ message, text });
    this.#queuedChars += text.length;
    void this.#pump();
  }

  drain(): Promise<void> {
    if (this.#queuedChars <= this.#highWaterMark || this.#finished) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  pauseInput(): void {
    if (this.#paused) return;
    let resume!: () => void;
    const promise = new Promise<void>((resolve) => (resume = resolve));
    this.#paused = { promise, resume };
  }

  resumeInput(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    paused?.resume();
  }

  async #close(): Promise<void> {
    // Reading stops now; what was queued before close() is still POSTed, then the connection is deleted.
    this.#readAbort.abort();
    if (this.#pumping) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    const connectionId = this.#connectionId;
    this.#finish(undefined, true);
    if (connectionId !== undefined) await this.#delete(connectionId);
    this.#endpoint.dispose();
  }

  async #delete(connectionId: string): Promise<void> {
    try {
      const response = await this.#endpoint.request("DELETE", { [HEADER_CONNECTION_ID]: connectionId }, undefined, AbortSignal.timeout(this.#closeTimeoutMs));
      void response.body?.cancel().catch(() => {});
      if (!response.ok && response.status !== 404) this.#logger.debug("the server refused the DELETE of the connection", { status: response.status });
    } catch (error) {
      this.#logger.debug("could not DELETE the connection", { error: String(error) });
    }
  }

  // ---- POSTing, in order --------------------------------------------------------------------------------------

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queueHead < this.#queue.length && !this.#finished) {
        const item = this.#queue[this.#queueHead]!;
        await this.#post(item.message, item.text);
        this.#queue[this.#queueHead++] = undefined as unknown as Queued;
        this.#queuedChars -= item.text.length;
        if (this.#queueHead === this.#queue.length) {
          this.#queue = [];
          this.#queueHead = 0;
        }
        if (this.#queuedChars <= this.#highWaterMark) this.#wake("drain");
      }
    } finally {
      this.#pumping = false;
      this.#wake("drain");
      this.#wake("idle");
    }
  }

  #wake(which: "drain" | "idle"): void {
    const waiters = which === "drain" ? this.#drainWaiters : this.#idleWaiters;
    if (waiters.length === 0) return;
    if (which === "drain") this.#drainWaiters = [];
    else this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }

  async #post(message: AnyMessage, text: string): Promise<void> {
    if (this.#connectionId === undefined && "method" in message && message.method === "initialize" && "id" in message) {
      return this.#initialize(message.id, text);
    }
    const sessionId = this.#routes.sessionOf(message);
    if (sessionId !== undefined) {
      let failure = this.#routes.failureOf(message, sessionId);
      if (failure === undefined && this.#connectionId !== undefined) {
        try {
          await this.#sessionStream(sessionId);
        } catch {
          if (this.#finished) return;
          failure = this.#routes.failureOf(message, sessionId);
        }
      }
      // Not sent: a request is answered with why, a notification or response has nowhere to go.
      if (failure !== undefined) return this.#answerRequest(message, failure as RequestError);
    }
    this.#routes.sending(message, sessionId);
    const headers: Record<string, string> = { "Content-Type": JSON_MIME_TYPE, Accept: `${JSON_MIME_TYPE}, ${EVENT_STREAM_MIME_TYPE}` };
    if (this.#connectionId !== undefined) headers[HEADER_CONNECTION_ID] = this.#connectionId;
    if (sessionId !== undefined) headers[HEADER_SESSION_ID] = sessionId;
    let response: Response;
    try {
      response = await this.#endpoint.request("POST", headers, text, this.#postAbort.signal);
    } catch (error) {
      return this.#fail(error);
    }
    if (response.ok) {
      void response.body?.cancel().catch(() => {});
      this.#routes.accepted(message);
      return;
    }
    const failure = await readFailure(response);
    if (this.#finished) return;
    const what = describeMessage(message);
    const error = failureAsRequestError(failure, what);
    if (this.#routes.refused(message)) this.#answerRequest(message, error);
    if (failure.status === 409 && sessionId !== undefined) return this.#failSession(sessionId, error);
    if (CONNECTION_FATAL_STATUSES.has(failure.status) || !("method" in message && "id" in message)) {
      this.#fail(failureAsTransportError(failure, what));
    }
  }

  #answerRequest(message: AnyMessage, error: RequestError): void {
    if ("method" in message && "id" in message) this.#answer(message.id, error);
  }

  async #initialize(id: JsonRpcId, text: string): Promise<void> {
    let response: Response;
    try {
      response = await this.#endpoint.request("POST", { "Content-Type": JSON_MIME_TYPE, Accept: JSON_MIME_TYPE }, text, this.#postAbort.signal);
    } catch (error) {
      return this.#fail(error);
    }
    if (!response.ok) {
      const failure = await readFailure(response);
      if (this.#finished) return;
      const body = jsonOf(failure.body);
      // The official server answers a failed initialize with a JSON-RPC error for it: pass that on as is.
      if (isResponseMessage(body) && idKey(body.id) === idKey(id) && "error" in body) this.#receiver?.message(body);
      else this.#answer(id, failureAsRequestError(failure, "initialize"));
      if (CONNECTION_FATAL_STATUSES.has(failure.status)) this.#fail(failureAsTransportError(failure, "initialize"));
      return;
    }
    const connectionId = response.headers.get(HEADER_CONNECTION_ID);
    let body: string;
    try {
      body = await readText(response, this.#maxBytes);
    } catch (error) {
      if (this.#finished) return;
      const { bytes, head } = error as { bytes?: number; head?: string };
      if (bytes !== undefined) return this.#receiver?.problem({ kind: "too_large", bytes, limit: this.#maxBytes, head: head ?? "" });
      return this.#fail(new TransportFailedError(`The ACP server's answer to initialize broke off: ${String(error)}`, { cause: error }));
    }
    if (this.#finished) return;
    const value = jsonOf(body);
    const problem =
      connectionId === null || connectionId === ""
        ? `it has no ${HEADER_CONNECTION_ID} header`
        : !isResponseMessage(value) || idKey(value.id) !== idKey(id)
          ? "its body is not the JSON-RPC response to that initialize"
          : undefined;
    if (problem !== undefined) {
      const error = new TransportFailedError(`The ACP server's 200 answer to initialize is not usable: ${problem}. Is ${this.#endpoint.url} an ACP endpoint?`, { status: response.status });
      this.#answer(id, failureAsRequestError({ status: response.status, statusText: "", body: body.slice(0, 512) }, "initialize"), error.message);
      return this.#fail(error);
    }
    if (!("error" in (value as AnyResponse))) {
      this.#connectionId = connectionId!;
      void this.#readConnectionStream(connectionId!);
    }
    this.#receiver?.message(value);
  }

  #answer(id: JsonRpcId, error: RequestError, message?: string): void {
    if (this.#finished) return;
    this.#receiver?.message({ jsonrpc: "2.0", id, error: { code: error.code, message: message ?? error.message, ...(error.data === undefined ? {} : { data: error.data }) } });
  }

  // ---- Event streams -------------------------------------------------------------------------------------------

  async #readConnectionStream(connectionId: string): Promise<void> {
    try {
      const response = await this.#openEventStream({ [HEADER_CONNECTION_ID]: connectionId });
      if (response === undefined) return;
      await this.#read(response, undefined);
      if (!this.#finished) this.#fail(new TransportFailedError(`The ACP server closed ${SCOPE_CONNECTION}: the server went away or ended the connection.`));
    } catch (error) {
      if (!this.#finished) this.#fail(error);
    }
  }

  /** The session's stream, opened once; resolves when the server has answered the GET (rejects when it refused). */
  #sessionStream(sessionId: string): Promise<void> {
    const existing = this.#sessions.get(sessionId);
    if (existing !== undefined) return existing.ready;
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    this.#readAbort.signal.addEventListener("abort", onAbort, { once: true });
    let opened!: () => void;
    let refused!: (error: unknown) => void;
    const ready = new Promise<void>((resolve, reject) => ((opened = resolve), (refused = reject)));
    ready.catch(() => {});
    const entry: SessionStream = { ready, abort };
    this.#sessions.set(sessionId, entry);
    const connectionId = this.#connectionId!;
    void (async () => {
      try {
        const response = await this.#openEventStream({ [HEADER_CONNECTION_ID]: connectionId, [HEADER_SESSION_ID]: sessionId }, abort.signal);
        if (response === undefined) return refused(new TransportFailedError("the link is closed"));
        opened();
        await this.#read(response, sessionId, abort.signal);
        if (!this.#finished && !abort.signal.aborted) this.#sessionStreamEnded(sessionId, `the ACP server closed the event stream of session ${sessionId}`);
      } catch (error) {
        if (this.#finished || abort.signal.aborted) return refused(error);
        // A 409 fails this session only (until it is reattached); any other refusal ends the transport.
        if (error instanceof HttpRefusal && error.status === 409) this.#failSession(sessionId, failureAsRequestError(error.failure, `the event stream of session ${sessionId}`));
        else this.#fail(error);
        refused(error);
      } finally {
        this.#readAbort.signal.removeEventListener("abort", onAbort);
        if (this.#sessions.get(sessionId) === entry) this.#sessions.delete(sessionId);
      }
    })();
    return ready;
  }

  /** GETs an event stream; undefined when the link finished meanwhile. Rejects with `HttpRefusal` for a status. */
  async #openEventStream(headers: Record<string, string>, signal: AbortSignal = this.#readAbort.signal): Promise<Response | undefined> {
    const response = await this.#endpoint.request("GET", { Accept: EVENT_STREAM_MIME_TYPE, ...headers }, undefined, signal);
    if (this.#finished) {
      void response.body?.cancel().catch(() => {});
      return undefined;
    }
    if (!response.ok) throw new HttpRefusal(await readFailure(response), headers[HEADER_SESSION_ID]);
    if (response.body === null) throw new TransportFailedError("The ACP server answered an event-stream GET without a body.");
    return response;
  }

  #read(response: Response, sessionId: string | undefined, signal: AbortSignal = this.#readAbort.signal): Promise<void> {
    return readEventStream(
      response.body!,
      this.#maxBytes,
      {
        event: (data) => this.#event(data, sessionId),
        tooLarge: (bytes, head) => this.#receiver?.problem({ kind: "too_large", bytes, limit: this.#maxBytes, head }),
      },
      () => this.#paused?.promise,
      () => this.#finished || signal.aborted,
    );
  }

  #event(data: string, sessionId: string | undefined): void | Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      const trimmed = data.trimStart();
      this.#receiver?.problem({
        kind: "parse",
        detail: error instanceof Error ? error.message : String(error),
        preview: data.length > 200 ? data.slice(0, 200) : data,
        looksLikeJson: trimmed.startsWith("{") || trimmed.startsWith("["),
      });
      return;
    }
    const decision = this.#routes.arrived(value, sessionId);
    if (decision.newSession !== undefined && !this.#sessions.has(decision.newSession)) {
      void this.#sessionStream(decision.newSession).catch(() => {});
    }
    if (!decision.afterPendingInput) {
      this.#receiver?.message(value);
      return;
    }
    return afterPendingInput().then(() => {
      if (!this.#finished) this.#receiver?.message(value);
    });
  }

  #sessionStreamEnded(sessionId: string, detail: string): void {
    const lost = this.#routes.streamEnded(sessionId);
    if (lost.length > 0) this.#receiver?.problem({ kind: "lost", ids: lost, detail });
  }

  #failSession(sessionId: string, error: RequestError): void {
    this.#sessions.get(sessionId)?.abort.abort();
    this.#sessions.delete(sessionId);
    const lost = this.#routes.failSession(sessionId, error);
    if (lost.length > 0) this.#receiver?.problem({ kind: "lost", ids: lost, detail: error.message, cause: error });
  }

  // ---- Ending ----------------------------------------------------------------------------------------------------

  #fail(error: unknown): void {
    if (this.#finished) return;
    const connectionId = this.#connectionId;
    this.#postAbort.abort();
    this.#finish(error instanceof HttpRefusal ? error.asTransportError() : error);
    this.#logger.debug("the Streamable HTTP transport failed", { error: String(error) });
    if (connectionId !== undefined) void this.#delete(connectionId).finally(() => this.#endpoint.dispose());
    else this.#endpoint.dispose();
  }

  #finish(cause: unknown, deferred = false): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#cause = cause;
    this.#readAbort.abort();
    this.#queue = [];
    this.#queueHead = 0;
    this.#queuedChars = 0;
    this.#paused?.resume();
    this.#wake("drain");
    if (!this.#receiver) return;
    if (deferred) queueMicrotask(() => this.#deliverClosed());
    else this.#deliverClosed();
  }

  #deliverClosed(): void {
    if (this.#closedDelivered) return;
    this.#closedDelivered = true;
    this.#receiver!.closed(this.#cause);
  }
}

/** An event-stream GET the server refused with an HTTP status. */
class HttpRefusal extends Error {
  constructor(
    readonly failure: HttpFailure,
    sessionId: string | undefined,
  ) {
    super(failureAsTransportError(failure, sessionId === undefined ? SCOPE_CONNECTION : `the event stream of session ${sessionId}`).message);
    this.name = "HttpRefusal";
  }

  get status(): number {
    return this.failure.status;
  }

  asTransportError(): LocalError {
    return new TransportFailedError(this.message, { status: this.failure.status });
  }
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeMessage(message: AnyMessage): string {
  if ("method" in message) return `the "${message.method}" ${"id" in message ? "request" : "notification"}`;
  return "a response";
}
