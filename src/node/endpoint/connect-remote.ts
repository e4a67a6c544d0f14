/**
 * Remote agents from Node: `connectRemote(url, options)` opens a stream to an ACP agent at an `http(s)://` or
 * `ws(s)://` URL with Node's `ws` as the WebSocket (Node 20 has none, and Node's global one cannot send headers,
 * so the token goes in `Authorization` and cookies flow), optionally reconnecting.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { reconnectingStream, type ReconnectingStream, type ReconnectOptions } from "../../client/reconnect/index.js";
import { openRemoteStream, type RemoteStream, type RemoteStreamOptions } from "../../remote/client/open-remote.js";
import { MemoryAcpCookieStore } from "../../remote/client/cookie-store.js";
import type { WebSocketConstructor } from "../../remote/websocket-like.js";
import {
  importOptional,
  OptionalDependencyMissingError,
  requireOptional,
  WS_DEPENDENCY,
} from "../optional-dependency.js";

/**
 * `ws`'s WebSocket, as the constructor the remote clients take (it accepts `{ headers }`). `ws` is an optional peer
 * dependency, loaded on the first `new`: without it, `new` throws `OptionalDependencyMissingError`.
 */
export const nodeWebSocket: WebSocketConstructor = function NodeWebSocket(
  url: string,
  protocols?: string | string[],
  options?: { headers?: Record<string, string> },
) {
  const { WebSocket } = requireOptional<typeof import("ws")>(WS_DEPENDENCY);
  return new WebSocket(url, protocols, options);
} as unknown as WebSocketConstructor;

/**
 * The WebSocket `connectRemote` uses: the caller's, else `ws`. Without `ws`, a WebSocket URL or profile fails with
 * `OptionalDependencyMissingError` (saying what to install), and `auto` speaks Streamable HTTP.
 */
async function webSocketFor(
  url: string,
  options: RemoteStreamOptions,
): Promise<Pick<RemoteStreamOptions, "WebSocket" | "profile">> {
  if (options.WebSocket !== undefined) return { WebSocket: options.WebSocket };
  try {
    await importOptional(WS_DEPENDENCY);
    return { WebSocket: nodeWebSocket };
  } catch (error) {
    if (!(error instanceof OptionalDependencyMissingError) || /^wss?:/i.test(url) || options.profile === "websocket")
      throw error;
    return { profile: "http" };
  }
}

/** Options of `connectRemote`. */
export interface ConnectRemoteOptions extends RemoteStreamOptions {
  /** Reconnect when the link drops mid-session (`true` for the defaults). Off by default. */
  reconnect?: boolean | ReconnectOptions;
}

/**
 * Opens a stream to the ACP agent at `url` (see `openRemoteStream`: `auto` tries WebSocket, then Streamable HTTP),
 * with `ws` as the WebSocket unless `options.WebSocket` says otherwise (`ws` is an optional peer dependency: without
 * it, a `ws(s)://` URL or the `websocket` profile rejects with `OptionalDependencyMissingError`, and `auto` uses
 * Streamable HTTP). With `reconnect`, the stream reopens the
 * link (same URL, same profile, same cookie store) when it drops; see `ReconnectingLink`.
 */
export async function connectRemote(
  url: string,
  options: ConnectRemoteOptions & { reconnect: true | ReconnectOptions },
): Promise<RemoteStream & ReconnectingStream>;
export async function connectRemote(url: string, options?: ConnectRemoteOptions): Promise<RemoteStream>;
export async function connectRemote(url: string, options: ConnectRemoteOptions = {}): Promise<RemoteStream> {
  const { reconnect, ...rest } = options;
  const streamOptions: RemoteStreamOptions = {
    ...rest,
    ...(await webSocketFor(url, rest)),
    ...(rest.cookies === "omit" ? {} : { cookieStore: rest.cookieStore ?? new MemoryAcpCookieStore() }),
  };
  const first = await openRemoteStream(url, streamOptions);
  if (reconnect === undefined || reconnect === false) return first;
  const again: RemoteStreamOptions = { ...streamOptions, profile: first.profile };
  const stream = reconnectingStream(
    () => openRemoteStream(first.profile === "websocket" ? first.url : url, again),
    reconnect === true ? {} : reconnect,
    first,
  );
  return Object.defineProperties(stream, {
    profile: { value: first.profile, enumerable: true },
    url: { value: first.url, enumerable: true },
    fallbackReason: { value: first.fallbackReason, enumerable: true },
    connectionId: { get: () => undefined, enumerable: true },
    link: { value: first.link, enumerable: false },
  }) as RemoteStream & ReconnectingStream;
}
