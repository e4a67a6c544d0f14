/**
 * `openRemoteStream`: one call for an ACP agent at a URL, whichever profile its server speaks. `ws://` and
 * `wss://` use the WebSocket profile; `http://` and `https://` use the one `profile` names, and with `auto` (the
 * default) try the WebSocket upgrade on the same URL first and fall back to Streamable HTTP when the server
 * refuses it or it fails to open (the RFD lets servers offer WebSocket only, and clients must speak both), but for
 * a 401 or 403: credentials the upgrade was refused would be refused over HTTP too, so that error ends it.
 * Browser-safe: it uses the platform's `fetch` and WebSocket unless given others (`@acpkit/sdk/node` passes `ws`).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { Stream } from "../../jsonrpc/link.js";
import type { TransportFailedError } from "../../jsonrpc/local-errors.js";
import { streamFromLink } from "../../transports/link-streams.js";
import { MemoryAcpCookieStore } from "./cookie-store.js";
import { HttpLink } from "./http-link.js";
import type { HttpStreamOptions } from "./http-stream.js";
import type { WebSocketConstructor } from "../websocket-like.js";
import { WebSocketLink } from "./websocket-link.js";
import type { WebSocketStreamOptions } from "./websocket-stream.js";

/** Which remote profile to use: `auto` tries WebSocket, then Streamable HTTP. */
export type RemoteProfile = "auto" | "websocket" | "http";

/** Options of `openRemoteStream`: those of both clients, and the profile. */
export interface RemoteStreamOptions
  extends Omit<HttpStreamOptions, "writeHighWaterMark">, Omit<WebSocketStreamOptions, "writeHighWaterMark"> {
  /** Default `auto`. A `ws(s)://` URL always uses WebSocket. */
  profile?: RemoteProfile;
}

/** A remote `Stream`, saying which profile it speaks. */
export interface RemoteStream extends Stream {
  /** The profile in use. */
  readonly profile: "websocket" | "http";
  /** The URL the transport talks to (`ws(s)://` for WebSocket). */
  readonly url: string;
  /** With `auto`, why the WebSocket attempt failed when the stream fell back to Streamable HTTP. */
  readonly fallbackReason: TransportFailedError | undefined;
  /** The server's connection id, once known (after `initialize` on HTTP; from the 101 where visible). */
  readonly connectionId: string | undefined;
  /** The link under the stream (for `sendText`, bridges); the engine uses `[LINK]`, which guards it. */
  readonly link: HttpLink | WebSocketLink;
}

/** `ws(s)://` for an `http(s)://` URL, unchanged otherwise. */
export function webSocketUrl(url: string): string {
  return url.replace(/^http(s?):\/\//i, (_, secure: string) => `ws${secure}://`);
}

function schemeOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    throw new TypeError(
      `Not a URL: ${JSON.stringify(url)}. Give the agent's endpoint, e.g. http://127.0.0.1:8080/acp or ws://host/acp.`,
    );
  }
}

/**
 * Opens a stream to the ACP agent at `url`. With the WebSocket profile it resolves once the socket is open, and
 * rejects with a `TransportFailedError` when it cannot open; Streamable HTTP sends nothing until `initialize`.
 */
export async function openRemoteStream(url: string, options: RemoteStreamOptions = {}): Promise<RemoteStream> {
  const scheme = schemeOf(url);
  const profile = options.profile ?? "auto";
  const isWs = scheme === "ws:" || scheme === "wss:";
  if (!isWs && scheme !== "http:" && scheme !== "https:")
    throw new TypeError(`Unsupported URL scheme ${scheme} in ${url}: use http(s):// or ws(s)://.`);
  if (isWs && profile === "http")
    throw new TypeError(
      `${url} is a WebSocket URL, but the profile is "http": use an http(s):// URL for Streamable HTTP.`,
    );
  const cookieStore = options.cookieStore ?? (options.cookies === "omit" ? undefined : new MemoryAcpCookieStore());
  const shared = cookieStore === undefined ? options : { ...options, cookieStore };
  const hasWebSocket =
    options.WebSocket !== undefined ||
    typeof (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket === "function";

  if (isWs || profile === "websocket" || (profile === "auto" && hasWebSocket)) {
    const wsUrl = isWs ? url : webSocketUrl(url);
    const link = new WebSocketLink(wsUrl, shared);
    try {
      await link.opened;
      return remote(streamFromLink(link, options), link, "websocket", wsUrl, undefined);
    } catch (error) {
      if (isWs || profile === "websocket") throw error;
      // Refused credentials (401, 403) would be refused over HTTP the same way: say so now, do not fall back.
      const status = (error as TransportFailedError).status;
      if (status === 401 || status === 403) throw error;
      return httpStream(url, shared, error as TransportFailedError);
    }
  }
  return httpStream(url, shared, undefined);
}

function httpStream(
  url: string,
  options: RemoteStreamOptions,
  fallbackReason: TransportFailedError | undefined,
): RemoteStream {
  const link = new HttpLink(url, options);
  return remote(streamFromLink(link, options), link, "http", url, fallbackReason);
}

function remote(
  stream: Stream,
  link: HttpLink | WebSocketLink,
  profile: "websocket" | "http",
  url: string,
  fallbackReason: TransportFailedError | undefined,
): RemoteStream {
  return Object.defineProperties(stream, {
    profile: { value: profile, enumerable: true },
    url: { value: url, enumerable: true },
    fallbackReason: { value: fallbackReason, enumerable: true },
    connectionId: { get: () => link.connectionId, enumerable: true },
    link: { value: link, enumerable: false },
  }) as RemoteStream;
}
