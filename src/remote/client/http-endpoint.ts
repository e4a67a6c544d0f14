/**
 * One remote ACP endpoint as the HTTP client sees it: the URL, the `fetch` to reach it, the headers every request
 * carries (the caller's, the bearer token, cookies), and what to make of a failed answer. Browser-safe.
 */
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import { RequestError } from "../../jsonrpc/request-error.js";
import { MemoryAcpCookieStore, type AcpCookieStore } from "./cookie-store.js";
import { HEADER_PROTOCOL_VERSION } from "../http-protocol.js";

/** Options every remote client shares (Streamable HTTP and WebSocket). */
export interface RemoteEndpointOptions {
  /** Headers sent on every request (and on the WebSocket upgrade where the constructor accepts headers). */
  headers?: Record<string, string>;
  /** A bearer token: `Authorization: Bearer <token>` (on WebSocket in browsers, the `acp.bearer.*` subprotocol). */
  token?: string;
  /** Whether the transport keeps and returns cookies (`include`, the default) or sends none (`omit`). */
  cookies?: "include" | "omit";
  /**
   * Where cookies are kept. Pass your own to keep affinity cookies across reconnects; without one, each stream
   * has its own store, cleared when it closes.
   */
  cookieStore?: AcpCookieStore;
}

/** Options of the HTTP endpoint. */
export interface HttpEndpointOptions extends RemoteEndpointOptions {
  /** The `fetch` to use. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * How long the server has to answer each request (its status and headers; an event stream's body may then last):
   * past it the request fails with a `TransportFailedError`, so a server that accepts connections and never answers
   * cannot hold a client forever. Default: no bound (fetch's own).
   */
  requestTimeoutMs?: number;
}

/** Longest error body kept from a failed answer, in bytes. */
export const MAX_ERROR_BODY_BYTES = 8 * 1024;

/** Statuses that mean the connection itself is unusable: credentials refused, or the connection is gone. */
export const CONNECTION_FATAL_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 410]);

/** Statuses that mean the server found the request itself malformed: reported as -32600. */
const INVALID_REQUEST_STATUSES: ReadonlySet<number> = new Set([400, 413, 415, 501]);

/** A non-2xx answer, read and capped: the status, its text and the start of the body. */
export interface HttpFailure {
  status: number;
  statusText: string;
  body: string;
}

/** The fetch, headers and cookies of one endpoint. */
/** A request the server accepted and then did not answer within `requestTimeoutMs`. */
export class NoAnswerError extends TransportFailedError {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "TransportFailedError";
  }
}

export class HttpEndpoint {
  readonly url: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #headers: Record<string, string>;
  readonly #cookies: AcpCookieStore | undefined;
  readonly #ownsCookies: boolean;
  readonly #requestTimeoutMs: number | undefined;

  constructor(url: string, options: HttpEndpointOptions) {
    this.url = url;
    const timeout = options.requestTimeoutMs;
    if (timeout !== undefined && !(Number.isSafeInteger(timeout) && timeout > 0 && timeout <= 2 ** 31 - 1))
      throw new RangeError(`requestTimeoutMs must be a positive whole number of ms, got ${String(timeout)}`);
    this.#requestTimeoutMs = timeout;
    const fetchImpl =
      options.fetch ?? (typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : undefined);
    if (fetchImpl === undefined)
      throw new TypeError(
        "createHttpStream needs a fetch: this platform has no globalThis.fetch, so pass options.fetch.",
      );
    this.#fetch = fetchImpl;
    this.#headers = { ...options.headers };
    if (options.token !== undefined) this.#headers.Authorization = `Bearer ${options.token}`;
    this.#cookies = options.cookies === "omit" ? undefined : (options.cookieStore ?? new MemoryAcpCookieStore());
    this.#ownsCookies = options.cookieStore === undefined;
  }

  /**
   * Adds `Acp-Protocol-Version` to every later request: the version the agent answered `initialize` with (the RFD's
   * SHOULD: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport).
   */
  setProtocolVersion(version: number): void {
    this.#headers[HEADER_PROTOCOL_VERSION] = String(version);
  }

  /**
   * Sends one request with the endpoint's headers and cookies, storing the cookies of the answer. A failure to
   * reach the server (not an HTTP status) rejects with a `TransportFailedError`; an abort rejects as fetch does.
   */
  async request(
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const requestHeaders = new Headers(this.#headers);
    for (const [name, value] of Object.entries(headers)) requestHeaders.set(name, value);
    this.#cookies?.apply(requestHeaders);
    const timeoutMs = this.#requestTimeoutMs;
    const deadline = timeoutMs === undefined ? undefined : new AbortController();
    const timer = deadline && setTimeout(() => deadline.abort(), timeoutMs);
    const effective =
      deadline === undefined
        ? signal
        : signal === undefined
          ? deadline.signal
          : AbortSignal.any([signal, deadline.signal]);
    let response: Response;
    try {
      // `cache` is the DOM's RequestInit field (browsers); Node's types leave it out, and Node's fetch ignores it.
      const init: RequestInit & { cache?: "no-store" } = {
        method,
        headers: requestHeaders,
        ...(body === undefined ? {} : { body }),
        ...(effective === undefined ? {} : { signal: effective }),
        credentials: this.#cookies === undefined ? "omit" : "include",
        cache: "no-store",
      };
      response = await this.#fetch(this.url, init);
    } catch (error) {
      if (signal?.aborted) throw error;
      if (deadline?.signal.aborted)
        throw new NoAnswerError(
          `The ACP server at ${this.url} did not answer a ${method} within ${timeoutMs} ms: it accepted the connection ` +
            "and then said nothing. Check that the URL is an ACP server, or allow it longer (requestTimeoutMs).",
          error,
        );
      throw unreachable(this.url, error);
    } finally {
      clearTimeout(timer);
    }
    this.#cookies?.store(response.headers);
    return response;
  }

  /** Forgets the cookies when the store is the endpoint's own. */
  dispose(): void {
    if (this.#ownsCookies) this.#cookies?.clear();
  }
}

/** The error for a server that could not be reached at all. */
export function unreachable(url: string, error: unknown): TransportFailedError {
  const cause = (error as { cause?: unknown })?.cause;
  const detail = [error, cause]
    .map((e) => (e instanceof Error ? e.message : e === undefined ? "" : String(e)))
    .filter((text) => text !== "")
    .join(": ");
  return new TransportFailedError(
    `Could not reach the ACP server at ${url} (${detail}). Check the URL and that the server is running.`,
    { cause: error },
  );
}

/** Reads a failed answer's body, at most `MAX_ERROR_BODY_BYTES` of it (cut at a character boundary). */
export async function readFailure(response: Response): Promise<HttpFailure> {
  let body = "";
  try {
    body = await readText(response, MAX_ERROR_BODY_BYTES, true);
  } catch {
    // The body is diagnostic only.
  }
  return { status: response.status, statusText: response.statusText, body };
}

/**
 * Reads a response body as UTF-8 text. Over `maxBytes`: cut there when `truncate`, else a `RangeError` whose
 * `head` holds the first bytes (the body is not read further).
 */
export async function readText(response: Response, maxBytes: number, truncate = false): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      if (bytes + value.length > maxBytes) {
        const room = maxBytes - bytes;
        void reader.cancel().catch(() => {});
        if (truncate) return text + decoder.decode(value.subarray(0, room), { stream: true });
        throw Object.assign(new RangeError(`the body is over ${maxBytes} bytes`), {
          bytes: bytes + value.length,
          head: text.slice(0, 256) + decoder.decode(value.subarray(0, Math.max(0, 256 - bytes)), { stream: true }),
        });
      }
      bytes += value.length;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

/** A one-line description of a failed answer, for messages. */
export function describeFailure(failure: HttpFailure, what: string): string {
  let body = failure.body.replace(/\s+/g, " ").trim();
  // A body that repeats the status text ("Unauthorized: ...") is not worth saying twice.
  if (failure.statusText && body.toLowerCase().startsWith(failure.statusText.toLowerCase()))
    body = body.slice(failure.statusText.length).replace(/^[\s:.-]+/, "");
  const excerpt = (body.length > 200 ? `${body.slice(0, 200)}…` : body).replace(/\.+$/, "");
  const advice = adviceFor(failure.status);
  return (
    `The ACP server answered ${what} with HTTP ` +
    `${failure.status}${failure.statusText ? ` ${failure.statusText}` : ""}${excerpt ? `: ${excerpt}` : ""}` +
    `${advice ? `. ${advice}` : "."}`
  );
}

function adviceFor(status: number): string {
  if (status === 401) return "It wants credentials: check the token (Authorization: Bearer) or the headers you send";
  if (status === 403)
    return "It refused these credentials or this origin: check the token and the server's allowed hosts and origins";
  if (status === 404 || status === 410)
    return (
      "It does not know this URL or this connection (wrong path, or the connection ended): check the URL, then " +
      "reconnect"
    );
  if (status === 409)
    return "The session's stream is taken or the session must be loaded again (session/load or session/resume)";
  if (status >= 500) return "The server failed; it may have processed the request anyway";
  return "";
}

/** The JSON-RPC error a waiting request gets for a failed POST: -32600 for a malformed request, else -32603. */
export function failureAsRequestError(failure: HttpFailure, what: string): RequestError {
  let body: unknown = failure.body;
  try {
    body = JSON.parse(failure.body);
  } catch {
    // Plain text.
  }
  const code = INVALID_REQUEST_STATUSES.has(failure.status) ? -32600 : -32603;
  return new RequestError(code, describeFailure(failure, what), { status: failure.status, body });
}

/** The local error that ends a transport for a fatal status. */
export function failureAsTransportError(failure: HttpFailure, what: string): TransportFailedError {
  return new TransportFailedError(describeFailure(failure, what), { status: failure.status });
}
