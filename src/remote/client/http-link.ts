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
 * - An event stream whose read breaks off is resumed with `Last-Event-ID` when the server gives event ids
 *   (`maxResumeAttempts`): what the agent sent meanwhile arrives once, in order (see `http-event-streams.ts`).
 * - `close()` sends what is queued, stops reading, then DELETEs the connection (bounded by `closeTimeoutMs`).
 * - Backpressure (`backpressure.ts`), counted on the messages not yet POSTed: `drain()` waits above
 *   `writeHighWaterMark`, a request or notification sent while `maxBufferedBytes` wait throws
 *   `OutputBacklogError`, and while replies wait above the high-water mark the event streams are not read.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { LinkReceiver, MessageLink } from "../../jsonrpc/link.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";

export type { HttpLinkOptions } from "./http-link-options.js";
import type { AnyMessage, JsonRpcId } from "../../jsonrpc/messages.js";
import type { RequestError } from "../../jsonrpc/request-error.js";
import {
  InputGate,
  isReply,
  OutputLedger,
  refuseOverBacklog,
  resolveMaxBufferedBytes,
} from "../../transports/backpressure.js";
import { LinkLifecycle } from "../../transports/link-lifecycle.js";
import { resolveMaxMessageBytes, serializeMessage } from "../../transports/serialize.js";
import { HttpEventStreams } from "./http-event-streams.js";
import { resolveResumeAttempts, resolveSilenceTimeout, type HttpLinkOptions } from "./http-link-options.js";
import { postInitialize, type InitializeOutcome } from "./http-initialize.js";
import {
  CONNECTION_FATAL_STATUSES,
  failureAsRequestError,
  failureAsTransportError,
  HttpEndpoint,
  readFailure,
} from "./http-endpoint.js";
import {
  EVENT_STREAM_MIME_TYPE,
  HEADER_CONNECTION_ID,
  HEADER_SESSION_ID,
  JSON_MIME_TYPE,
  METHODS,
} from "../http-protocol.js";
import { HttpRoutes } from "./http-routes.js";

interface Queued {
  message: AnyMessage;
  text: string;
}

/** See the file comment. */
export class HttpLink implements MessageLink {
  readonly #endpoint: HttpEndpoint;
  readonly #maxBytes: number;
  readonly #highWaterMark: number;
  readonly #maxBuffered: number;
  readonly #ledger = new OutputLedger();
  readonly #gate = new InputGate(
    () => this.#pauseReading(),
    () => this.#resumeReading(),
  );
  readonly #closeTimeoutMs: number;
  readonly #logger: Logger;
  readonly #routes = new HttpRoutes();
  readonly #streams: HttpEventStreams;
  readonly #deliverText: ((text: string, value: unknown) => void) | undefined;
  /** Aborts every GET stream (closing, failing). POSTs have their own, aborted only on failure. */
  readonly #readAbort = new AbortController();
  readonly #postAbort = new AbortController();
  #connectionId: string | undefined;
  /** The receiver, and the end of the link: stop reading, drop what was not POSTed, wake whoever waits. */
  readonly #life = new LinkLifecycle(() => {
    this.#readAbort.abort();
    this.#queue = [];
    this.#queueHead = 0;
    this.#queuedChars = 0;
    this.#ledger.clear();
    this.#paused?.resume();
    this.#wake("drain");
  });
  #queue: Queued[] = [];
  #queueHead = 0;
  #queuedChars = 0;
  #pumping = false;
  #drainWaiters: Array<() => void> = [];
  #idleWaiters: Array<() => void> = [];
  #paused: { promise: Promise<void>; resume: () => void } | undefined;

  constructor(url: string, options: HttpLinkOptions = {}) {
    this.#endpoint = new HttpEndpoint(url, options);
    this.#maxBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.#highWaterMark = options.writeHighWaterMark ?? 256 * 1024;
    this.#maxBuffered = resolveMaxBufferedBytes(options.maxBufferedBytes);
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 5000;
    this.#logger = options.logger ?? silentLogger;
    this.#deliverText = options.deliverText;
    const isFinished = () => this.#life.finished;
    this.#streams = new HttpEventStreams(
      {
        endpoint: this.#endpoint,
        maxBytes: this.#maxBytes,
        maxResumeAttempts: resolveResumeAttempts(options.maxResumeAttempts),
        silenceMs: resolveSilenceTimeout(options.silenceTimeoutMs),
        logger: this.#logger,
        routes: this.#routes,
        get finished() {
          return isFinished();
        },
        paused: () => this.#paused?.promise,
        message: (value, text) => this.#deliver(value, text),
        problem: (problem) => this.#life.receiver?.problem(problem),
        fail: (error) => this.#fail(error),
      },
      this.#readAbort.signal,
    );
  }

  /** The connection id the server gave in its `initialize` answer (undefined before). */
  get connectionId(): string | undefined {
    return this.#connectionId;
  }

  /** The endpoint URL. */
  get url(): string {
    return this.#endpoint.url;
  }

  /** The largest message sent or accepted, in UTF-8 bytes. */
  get maxMessageBytes(): number {
    return this.#maxBytes;
  }

  start(receiver: LinkReceiver): void {
    this.#life.start(receiver);
  }

  send(message: AnyMessage): void {
    this.sendText(serializeMessage(message, this.#maxBytes), message);
  }

  /**
   * Sends `text`, the exact frame of `message` (which routes it), as the POST body: for bridges that pass frames
   * on unchanged. The caller checks its size.
   */
  sendText(text: string, message: AnyMessage): void {
    if (this.#life.finished || this.#life.closing) return;
    const reply = isReply(message);
    if (!reply) refuseOverBacklog(message, this.#queuedChars, this.#maxBuffered);
    this.#queue.push({ message, text });
    this.#queuedChars += text.length;
    this.#ledger.enter(text.length, reply);
    void this.#pump();
    // The server does not take our replies: read nothing more from it until it does.
    if (reply && this.#ledger.replyPending >= this.#highWaterMark && !this.#gate.heldByOutput) {
      this.#gate.output(true);
      void this.drain().then(() => this.#gate.output(false));
    }
  }

  /** Messages queued and not yet POSTed, in UTF-16 units. */
  get pendingOutput(): number {
    return this.#queuedChars;
  }

  drain(): Promise<void> {
    if (this.#queuedChars <= this.#highWaterMark || this.#life.finished) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  close(): Promise<void> {
    return this.#life.close(() => this.#close());
  }

  pauseInput(): void {
    this.#gate.reader(true);
  }

  resumeInput(): void {
    this.#gate.reader(false);
  }

  #pauseReading(): void {
    if (this.#paused) return;
    let resume!: () => void;
    const promise = new Promise<void>((resolve) => (resume = resolve));
    this.#paused = { promise, resume };
  }

  #resumeReading(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    paused?.resume();
  }

  async #close(): Promise<void> {
    // Reading stops now; what was queued before close() is still POSTed, then the connection is deleted.
    this.#readAbort.abort();
    if (this.#pumping) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    const connectionId = this.#connectionId;
    this.#life.finishLater(undefined);
    if (connectionId !== undefined) await this.#delete(connectionId);
    this.#endpoint.dispose();
  }

  async #delete(connectionId: string): Promise<void> {
    try {
      const response = await this.#endpoint.request(
        "DELETE",
        { [HEADER_CONNECTION_ID]: connectionId },
        undefined,
        AbortSignal.timeout(this.#closeTimeoutMs),
      );
      void response.body?.cancel().catch(() => {});
      if (!response.ok && response.status !== 404)
        this.#logger.debug("the server refused the DELETE of the connection", { status: response.status });
    } catch (error) {
      this.#logger.debug("could not DELETE the connection", { error: String(error) });
    }
  }

  // ---- POSTing, in order --------------------------------------------------------------------------------------

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queueHead < this.#queue.length && !this.#life.finished) {
        const item = this.#queue[this.#queueHead]!;
        await this.#post(item.message, item.text);
        this.#queue[this.#queueHead++] = undefined as unknown as Queued;
        this.#queuedChars -= item.text.length;
        this.#ledger.leave(item.text.length);
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
    if (
      this.#connectionId === undefined &&
      "method" in message &&
      message.method === METHODS.initialize &&
      "id" in message
    ) {
      return this.#initialize(message.id, text);
    }
    const sessionId = this.#routes.sessionOf(message);
    if (sessionId !== undefined) {
      let failure = this.#routes.failureOf(message, sessionId);
      if (failure === undefined && this.#connectionId !== undefined) {
        try {
          await this.#streams.session(sessionId);
        } catch {
          if (this.#life.finished) return;
          failure = this.#routes.failureOf(message, sessionId);
        }
      }
      // Not sent: a request is answered with why, a notification or response has nowhere to go.
      if (failure !== undefined) return this.#answerRequest(message, failure as RequestError);
    }
    this.#routes.sending(message, sessionId);
    const headers: Record<string, string> = {
      "Content-Type": JSON_MIME_TYPE,
      Accept: `${JSON_MIME_TYPE}, ${EVENT_STREAM_MIME_TYPE}`,
    };
    if (this.#connectionId !== undefined) headers[HEADER_CONNECTION_ID] = this.#connectionId;
    if (sessionId !== undefined) headers[HEADER_SESSION_ID] = sessionId;
    let response: Response;
    try {
      response = await this.#endpoint.request("POST", headers, text, this.#postAbort.signal);
    } catch (error) {
      return this.#fail(error as Error);
    }
    if (response.ok) {
      void response.body?.cancel().catch(() => {});
      this.#routes.accepted(message);
      return;
    }
    const failure = await readFailure(response);
    if (this.#life.finished) return;
    const what = describeMessage(message);
    const error = failureAsRequestError(failure, what);
    if (this.#routes.refused(message)) this.#answerRequest(message, error);
    if (failure.status === 409 && sessionId !== undefined) return this.#streams.failSession(sessionId, error);
    if (CONNECTION_FATAL_STATUSES.has(failure.status) || !("method" in message && "id" in message)) {
      this.#fail(failureAsTransportError(failure, what));
    }
  }

  #answerRequest(message: AnyMessage, error: RequestError): void {
    if ("method" in message && "id" in message) this.#answer(message.id, error);
  }

  async #initialize(id: JsonRpcId, text: string): Promise<void> {
    let outcome: InitializeOutcome;
    try {
      outcome = await postInitialize(this.#endpoint, id, text, this.#maxBytes, this.#postAbort.signal);
    } catch {
      return; // aborted: the link is ending
    }
    if (this.#life.finished) return;
    switch (outcome.kind) {
      case "answered":
        if (outcome.connectionId !== undefined) {
          this.#connectionId = outcome.connectionId;
          const version = (outcome.response as { result?: { protocolVersion?: unknown } }).result?.protocolVersion;
          if (typeof version === "number" && Number.isSafeInteger(version)) this.#endpoint.setProtocolVersion(version);
          void this.#streams.openConnectionStream(outcome.connectionId);
        }
        return this.#deliver(outcome.response, outcome.text);
      case "refused":
        this.#answer(id, outcome.error);
        if (outcome.fatal) this.#fail(outcome.fatal);
        return;
      case "too_large":
        return this.#life.receiver?.problem({
          kind: "too_large",
          bytes: outcome.bytes,
          limit: this.#maxBytes,
          head: outcome.head,
        });
      case "failed":
        if (outcome.answer) this.#answer(id, outcome.answer);
        return this.#fail(outcome.error);
    }
  }

  #answer(id: JsonRpcId, error: RequestError): void {
    if (this.#life.finished) return;
    this.#deliver({
      jsonrpc: "2.0",
      id,
      error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
    });
  }

  /** Hands an incoming message on: to `deliverText` with its exact text when set, else to the receiver. */
  #deliver(value: unknown, text?: string): void {
    if (this.#deliverText) this.#deliverText(text ?? JSON.stringify(value), value);
    else this.#life.receiver?.message(value);
  }

  // ---- Ending ----------------------------------------------------------------------------------------------------

  #fail(error: Error): void {
    if (this.#life.finished) return;
    const connectionId = this.#connectionId;
    this.#postAbort.abort();
    this.#life.finish(error);
    this.#logger.debug("the Streamable HTTP transport failed", { error: String(error) });
    if (connectionId !== undefined) void this.#delete(connectionId).finally(() => this.#endpoint.dispose());
    else this.#endpoint.dispose();
  }
}

function describeMessage(message: AnyMessage): string {
  if ("method" in message) return `the "${message.method}" ${"id" in message ? "request" : "notification"}`;
  return "a response";
}
