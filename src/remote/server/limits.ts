/**
 * The limits an ACP server keeps per connection and per server, their defaults, and their validation. The first four
 * are the official SDK 2.4.0's `ConnectionLimits` (same names, same defaults, same meaning); the rest are acpkit's.
 *
 * Worst-case memory held for clients is about `maxConnections x (maxBufferedBytes + maxMessageBytes)`: output beyond
 * `maxBufferedBytes` makes the agent wait (backpressure), and a connection whose agent ignores that and whose client
 * does not read is closed once it holds one more maximal message.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { DEFAULT_MAX_MESSAGE_BYTES } from "../../transports/serialize.js";

/** Default for {@link ConnectionLimits.maxBufferedBytes}: 64 MiB (as the official SDK). */
export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/** Default for {@link ConnectionLimits.maxOutputStallMs}: 60 seconds (as the official SDK). */
export const DEFAULT_MAX_OUTPUT_STALL_MS = 60_000;
/** Default for {@link ConnectionLimits.maxBufferedSessionStreams}: 1024 (as the official SDK). */
export const DEFAULT_MAX_BUFFERED_SESSION_STREAMS = 1024;
/** Default for {@link ConnectionLimits.maxIdLength}: 1024 (as the official SDK). */
export const DEFAULT_MAX_ID_LENGTH = 1024;
/** Default for {@link ServerLimits.maxRequestBodyBytes}: 16 MiB (the official Node adapter's default). */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024;
/** Default for {@link ServerLimits.maxConnections}: 1024. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** Default for {@link ServerLimits.idleTimeoutMs}: 30 seconds. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** Default for {@link ServerLimits.keepAliveMs}: 15 seconds. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Default for {@link ServerLimits.initializeTimeoutMs}: 30 seconds. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;
/** Default for {@link ServerLimits.maxPendingRequests}: 1024. */
export const DEFAULT_MAX_PENDING_REQUESTS = 1024;
/** Default for {@link ServerLimits.maxOpenSessionStreams}: 256. */
export const DEFAULT_MAX_OPEN_SESSION_STREAMS = 256;
/** Default for {@link ServerLimits.maxRetainedBytes}: 1 MiB. */
export const DEFAULT_MAX_RETAINED_BYTES = 1024 * 1024;
/** Default for {@link ServerLimits.requestBodyTimeoutMs}: 30 seconds. */
export const DEFAULT_REQUEST_BODY_TIMEOUT_MS = 30_000;
/** Default for {@link ServerLimits.maxBufferedRequestBytes}: 64 MiB (four maximal bodies). */
export const DEFAULT_MAX_BUFFERED_REQUEST_BYTES = 64 * 1024 * 1024;

/** The longest a timer can wait; timers fire at once past it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Per-connection limits, as the official SDK 2.4.0 names them. */
export interface ConnectionLimits {
  /**
   * Agent output a connection holds for its client before the agent is made to wait (its `drain()` / awaited sends
   * pend, and a stdio agent's stdout is no longer read) and client requests are held back. Counted in UTF-16 units
   * of the JSON text queued on all the connection's streams (HTTP) or reported by the socket (WebSocket).
   */
  readonly maxBufferedBytes?: number;
  /** How long a connection holding `maxBufferedBytes` waits for its client to read any of it before it is closed. */
  readonly maxOutputStallMs?: number;
  /** Sessions of one HTTP connection holding output that no open stream receives; one more closes the connection. */
  readonly maxBufferedSessionStreams?: number;
  /** Longest session id and string request id a connection tracks (400 for a client, closing for the agent). */
  readonly maxIdLength?: number;
}

/** acpkit's further limits. */
export interface ServerLimits extends ConnectionLimits {
  /** Largest POST body; larger ones get 413 without being buffered. */
  readonly maxRequestBodyBytes?: number;
  /** How long a POST body may take to arrive once the server starts reading it; 408 after that. */
  readonly requestBodyTimeoutMs?: number;
  /**
   * Bytes of POST bodies held at once while they are read, all requests together; a body that would pass it gets 503
   * (retry later). Bounds what many slow bodies can cost.
   */
  readonly maxBufferedRequestBytes?: number;
  /** Largest message the agent may send (UTF-8 bytes of its JSON). Default `DEFAULT_MAX_MESSAGE_BYTES` (32 MiB). */
  readonly maxMessageBytes?: number;
  /** Open connections (HTTP and WebSocket); one more `initialize` or upgrade gets 503. */
  readonly maxConnections?: number;
  /**
   * How long an HTTP connection with no stream open and no request in flight is kept for its client to come back.
   * Then it is closed and its agent stopped. WebSocket connections end when their socket closes.
   */
  readonly idleTimeoutMs?: number;
  /** Interval of SSE keep-alive comments on an idle stream (and of WebSocket pings in the Node adapter). */
  readonly keepAliveMs?: number;
  /** How long the agent has to answer `initialize`: 504 after that, and the agent is stopped. */
  readonly initializeTimeoutMs?: number;
  /** Client requests a connection tracks until the agent answers them; one more gets 429 (HTTP) or closes (WS). */
  readonly maxPendingRequests?: number;
  /** Session streams one HTTP connection may have open at once; one more GET gets 429. */
  readonly maxOpenSessionStreams?: number;
  /**
   * Output already sent on a stream that is kept for a client resuming with `Last-Event-ID` after a break, per stream
   * (bytes of SSE as sent, in whole chunks; the in-memory backend). A cursor older than what is kept gets 410.
   */
  readonly maxRetainedBytes?: number;
}

/** Every limit, resolved. */
export type ResolvedLimits = Required<ServerLimits>;

/** Applies the defaults and checks each value: a positive safe integer, timers at most 2^31 - 1 ms. */
export function resolveLimits(options: ServerLimits = {}): ResolvedLimits {
  const limits: ResolvedLimits = {
    maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
    maxOutputStallMs: options.maxOutputStallMs ?? DEFAULT_MAX_OUTPUT_STALL_MS,
    maxBufferedSessionStreams: options.maxBufferedSessionStreams ?? DEFAULT_MAX_BUFFERED_SESSION_STREAMS,
    maxIdLength: options.maxIdLength ?? DEFAULT_MAX_ID_LENGTH,
    maxRequestBodyBytes: options.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES,
    requestBodyTimeoutMs: options.requestBodyTimeoutMs ?? DEFAULT_REQUEST_BODY_TIMEOUT_MS,
    maxBufferedRequestBytes: options.maxBufferedRequestBytes ?? DEFAULT_MAX_BUFFERED_REQUEST_BYTES,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
    maxPendingRequests: options.maxPendingRequests ?? DEFAULT_MAX_PENDING_REQUESTS,
    maxOpenSessionStreams: options.maxOpenSessionStreams ?? DEFAULT_MAX_OPEN_SESSION_STREAMS,
    maxRetainedBytes: options.maxRetainedBytes ?? DEFAULT_MAX_RETAINED_BYTES,
  };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`${name} must be a positive safe integer, got ${String(value)}`);
  }
  for (const name of [
    "maxOutputStallMs",
    "idleTimeoutMs",
    "keepAliveMs",
    "initializeTimeoutMs",
    "requestBodyTimeoutMs",
  ] as const) {
    if (limits[name] > MAX_TIMER_MS)
      throw new RangeError(`${name} must be at most ${MAX_TIMER_MS} ms (about 24.8 days), got ${limits[name]}`);
  }
  return limits;
}
