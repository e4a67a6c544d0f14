/**
 * The SSE GET streams of one Streamable HTTP connection: the connection stream, and one stream per session,
 * each read to its end, each event parsed and handed on in order. The routing decisions come from `HttpRoutes`.
 *
 * Contracts:
 * - A read that breaks off (the network, a proxy, a node that went away) on a stream whose events carry ids is
 *   resumed: the GET is sent again with `Last-Event-ID` (the id of the last event handled), at once and then with a
 *   growing delay, up to `maxResumeAttempts` times in a row (also through 409, 502, 503 and 504 answers and
 *   unreachable servers), so nothing is lost or seen twice. A stream without ids is not resumed.
 * - A stream has ended only when the server said so: its end event (`STREAM_END_EVENT`) came last. A response that
 *   ends cleanly without it was cut (a balancer may end the response of a server that died as if it were complete)
 *   and is resumed like a break, when it has ids.
 * - The connection stream ending, or any GET refused with a status other than 409 (and 410 for a session), or a
 *   read that breaks off and cannot be resumed, ends the transport (`fail`) with a `TransportFailedError` that says
 *   which stream and why.
 * - A session stream refused with 409 (another reader) or 410 (a resume too late: events were lost) fails that
 *   session only; one that ends loses its waiting requests (`lost`), and is opened again by the next message for
 *   the session.
 * - A response on the connection stream to a session-scoped request (`session/load`) is handed on after the input
 *   already received on other streams, so the history the session stream carried comes first.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (GET streams, routing)
 */
import type { FrameProblem } from "../../jsonrpc/link.js";
import type { Logger } from "../../jsonrpc/logger.js";
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import type { RequestError } from "../../jsonrpc/request-error.js";
import { EventStreamSilentError, readEventStream, type EventStreamEnd } from "./event-stream-reader.js";
import {
  failureAsRequestError,
  failureAsTransportError,
  NoAnswerError,
  readFailure,
  type HttpEndpoint,
  type HttpFailure,
} from "./http-endpoint.js";
import { EVENT_STREAM_MIME_TYPE, HEADER_CONNECTION_ID, HEADER_SESSION_ID } from "../http-protocol.js";
import type { HttpRoutes } from "./http-routes.js";

/**
 * Default of `maxResumeAttempts`: GETs in a row that try to resume a broken stream. Ten span about 11 s (delays 0,
 * 0.1, 0.2, 0.4, 0.8, 1.6, then 2 s): a cluster behind a balancer needs a few seconds after a node dies (health
 * checks, a loaded node answering them late), and six (3 s) gave up while the balancer had no node to offer.
 */
export const DEFAULT_MAX_RESUME_ATTEMPTS = 10;
/** The delay before each resume attempt after the first (which is immediate) doubles from this, up to the cap. */
const RESUME_INITIAL_DELAY_MS = 100;
const RESUME_MAX_DELAY_MS = 2000;
/**
 * Statuses of a resuming GET that are worth another attempt: a balancer or node in between was not ready, or (409) a
 * server that does not let a resuming reader take over has not yet seen the broken response go.
 */
const RESUMABLE_STATUSES: ReadonlySet<number> = new Set([409, 502, 503, 504]);

/** What the streams need from the link that owns them. */
export interface EventStreamOwner {
  readonly endpoint: HttpEndpoint;
  readonly maxBytes: number;
  /** GETs in a row that try to resume a broken stream (0: never resume). */
  readonly maxResumeAttempts: number;
  /** Silence (after keep-alives were seen) that breaks a stream's read; undefined: none. */
  readonly silenceMs?: number;
  readonly logger: Logger;
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
      const read = await this.#follow({ [HEADER_CONNECTION_ID]: connectionId }, undefined, this.#stopped, what);
      if (read === undefined) return;
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
        const read = await this.#follow(
          { [HEADER_CONNECTION_ID]: this.#connectionId, [HEADER_SESSION_ID]: sessionId },
          sessionId,
          abort.signal,
          what,
          opened,
        );
        if (read === undefined) return refused(new TransportFailedError("the link is closed"));
        if (!this.#owner.finished && !abort.signal.aborted)
          this.#lose(this.#owner.routes.streamEnded(sessionId), `the ACP server closed ${what}`);
      } catch (error) {
        if (this.#owner.finished || abort.signal.aborted) return refused(error);
        // A 409 or 410 fails this session only (until it is reattached); any other refusal ends the transport.
        if (error instanceof HttpRefusal && (error.failure.status === 409 || error.failure.status === 410))
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

  /**
   * Opens a stream and reads it to its end, resuming it with `Last-Event-ID` when a read breaks off (see the file
   * comment). Resolves "ended" when the server ended the stream, undefined when the link finished meanwhile; rejects
   * with the refusal or the break that could not be resumed. `opened` is called once the first GET is answered.
   */
  async #follow(
    headers: Record<string, string>,
    sessionId: string | undefined,
    signal: AbortSignal,
    what: string,
    opened?: () => void,
  ): Promise<"ended" | undefined> {
    let lastEventId = "";
    let attempts = 0;
    /** The read that broke off, while its stream is being resumed: what the user is told first if resuming fails. */
    let broken: unknown;
    const position = (id: string) => {
      lastEventId = id;
      attempts = 0;
    };
    for (;;) {
      const resuming = lastEventId !== "";
      let response: Response | undefined;
      try {
        response = await this.#open(resuming ? { ...headers, "Last-Event-ID": lastEventId } : headers, signal, what);
      } catch (error) {
        // A server that fell silent and then does not answer a GET either is gone: not worth more attempts.
        const gone = broken instanceof EventStreamSilentError && error instanceof NoAnswerError;
        if (!resuming || gone || !this.#mayRetry(error, signal, ++attempts))
          throw this.#resumeFailed(broken, error, what);
        await this.#resumeDelay(attempts, signal);
        continue;
      }
      if (response === undefined) return undefined;
      if (!resuming) opened?.();
      try {
        const end = await this.#read(response, sessionId, signal, position);
        if (end !== "cut") return "ended";
        // Cut without ids to resume from: taken for the end, as from a server that never sends the end event.
        if (lastEventId === "") {
          this.#owner.logger.debug("an event stream ended without the end event, before any event id", {
            stream: what,
          });
          return "ended";
        }
        throw new StreamCut();
      } catch (error) {
        if (lastEventId === "" || !this.#mayRetry(error, signal, ++attempts)) throw error;
        broken = error;
        this.#owner.logger.debug("an event stream broke off: resuming it with Last-Event-ID", {
          stream: what,
          lastEventId,
          attempt: attempts,
          error: errorText(error),
        });
        await this.#resumeDelay(attempts, signal);
      }
    }
  }

  /**
   * The error that ends a stream whose resume gave up: the break first (what happened), then why resuming failed. A
   * refusal with a status the callers act on (409, 410) and a failure with no break before it pass through as they are.
   */
  #resumeFailed(broken: unknown, error: unknown, what: string): unknown {
    if (broken === undefined || this.#owner.finished) return error;
    if (error instanceof HttpRefusal && [409, 410].includes(error.failure.status)) return error;
    const url = this.#owner.endpoint.url;
    const breakText = asTransportError(broken, what, url).message;
    return new TransportFailedError(`${breakText} Resuming it failed: ${errorText(error).replace(/\.$/, "")}.`, {
      cause: error,
    });
  }

  /** Whether a failed GET or read is worth another resume attempt (the `attempts`-th in a row). */
  #mayRetry(error: unknown, signal: AbortSignal, attempts: number): boolean {
    if (this.#owner.finished || signal.aborted || attempts > this.#owner.maxResumeAttempts) return false;
    if (error instanceof HttpRefusal) return RESUMABLE_STATUSES.has(error.failure.status);
    return true;
  }

  /** Waits before the `attempts`-th resume attempt in a row: none before the first. */
  #resumeDelay(attempts: number, signal: AbortSignal): Promise<void> {
    if (attempts <= 1) return Promise.resolve();
    const ms = Math.min(RESUME_INITIAL_DELAY_MS * 2 ** (attempts - 2), RESUME_MAX_DELAY_MS);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
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

  #read(
    response: Response,
    sessionId: string | undefined,
    signal: AbortSignal,
    position: (lastEventId: string) => void,
  ): Promise<EventStreamEnd> {
    const owner = this.#owner;
    return readEventStream(
      response.body!,
      owner.maxBytes,
      {
        event: (data) => this.#event(data, sessionId),
        tooLarge: (bytes, head) => owner.problem({ kind: "too_large", bytes, limit: owner.maxBytes, head }),
        position,
      },
      () => owner.paused(),
      () => owner.finished || signal.aborted,
      owner.silenceMs,
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

/** A response that ended without the server's end event: the stream was cut, not ended. */
class StreamCut extends Error {
  constructor() {
    super("the response ended without the server's end-of-stream event");
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

function errorText(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  return [error, cause]
    .map((e) => (e instanceof Error ? e.message : e === undefined ? "" : String(e)))
    .filter((t) => t !== "")
    .join(": ");
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
