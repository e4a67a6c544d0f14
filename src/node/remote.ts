/**
 * Remote agents from Node: `connectRemote(url, options)` opens a stream to an ACP agent at an `http(s)://` or
 * `ws(s)://` URL with Node's `ws` as the WebSocket (Node 20 has none, and Node's global one cannot send headers,
 * so the token goes in `Authorization` and cookies flow), optionally reconnecting.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { WebSocket } from "ws";
import { reconnectingStream, type ReconnectingStream, type ReconnectOptions } from "../client/reconnect/index.js";
import { openRemoteStream, type RemoteStream, type RemoteStreamOptions } from "../transports/remote/open-remote.js";
import { MemoryAcpCookieStore } from "../transports/remote/cookie-store.js";
import type { WebSocketConstructor } from "../transports/remote/websocket-like.js";

/** `ws`'s WebSocket, as the constructor the remote clients take (it accepts `{ headers }`). */
export const nodeWebSocket: WebSocketConstructor = WebSocket as unknown as WebSocketConstructor;

/** Options of `connectRemote`. */
export interface ConnectRemoteOptions extends RemoteStreamOptions {
  /** Reconnect when the link drops mid-session (`true` for the defaults). Off by default. */
  reconnect?: boolean | ReconnectOptions;
}

/**
 * Opens a stream to the ACP agent at `url` (see `openRemoteStream`: `auto` tries WebSocket, then Streamable HTTP),
 * with `ws` as the WebSocket unless `options.WebSocket` says otherwise. With `reconnect`, the stream reopens the
 * link (same URL, same profile, same cookie store) when it drops; see `ReconnectingLink`.
 */
export async function connectRemote(url: string, options: ConnectRemoteOptions & { reconnect: true | ReconnectOptions }): Promise<RemoteStream & ReconnectingStream>;
export async function connectRemote(url: string, options?: ConnectRemoteOptions): Promise<RemoteStream>;
export async function connectRemote(url: string, options: ConnectRemoteOptions = {}): Promise<RemoteStream> {
  const { reconnect, ...rest } = options;
  const streamOptions: RemoteStreamOptions = {
    WebSocket: nodeWebSocket,
    ...rest,
    ...(rest.cookies === "omit" ? {} : { cookieStore: rest.cookieStore ?? new MemoryAcpCookieStore() }),
  };
  const first = await openRemoteStream(url, streamOptions);
  if (reconnect === undefined || reconnect === false) return first;
  const again: RemoteStreamOptions = { ...streamOptions, profile: first.profile };
  const stream = reconnectingStream(() => openRemoteStream(first.profile === "websocket" ? first.url : url, again), reconnect === true ? {} : reconnect, first);
  return Object.defineProperties(stream, {
    profile: { value: first.profile, enumerable: true },
    url: { value: first.url, enumerable: true },
    fallbackReason: { value: first.fallbackReason, enumerable: true },
    connectionId: { get: () => undefined, enumerable: true },
    link: { value: first.link, enumerable: false },
  }) as RemoteStream & ReconnectingStream;
}
