/**
 * `createWebSocketStream`: ACP over a WebSocket, as a `Stream` any connection takes. Same name, call shape and
 * options as `@agentclientprotocol/sdk/experimental/ws-client`; the result also carries an acpkit fast link.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (WebSocket upgrade)
 */
import type { Stream } from "../../jsonrpc/link.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { streamFromLink, type LinkStreamOptions } from "../../transports/link-streams.js";
import { WebSocketLink, type WebSocketLinkOptions } from "./websocket-link.js";

/**
 * Options of `createWebSocketStream`: the official ones (`protocols`, `headers`, `WebSocket`, `cookies`, `cookieStore`)
 * and acpkit's.
 */
export interface WebSocketStreamOptions extends WebSocketLinkOptions, LinkStreamOptions {}

/**
 * Creates an ACP `Stream` over a WebSocket to `serverUrl` (`ws://` or `wss://`). The socket opens at once;
 * messages written before it is open are sent when it opens. In Node 20, pass `ws`'s constructor as `WebSocket`
 * (or use `connectRemote` from `@acpkit/sdk/node`). See `WebSocketLink` for credentials, cookies and closing.
 */
export function createWebSocketStream<Message extends AnyMessage = AnyMessage>(
  serverUrl: string,
  options: WebSocketStreamOptions = {},
): Stream & { readable: ReadableStream<Message>; writable: WritableStream<Message> } {
  return streamFromLink(new WebSocketLink(serverUrl, options), options) as Stream & {
    readable: ReadableStream<Message>;
    writable: WritableStream<Message>;
  };
}
