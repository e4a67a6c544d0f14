/**
 * `createHttpStream`: ACP over Streamable HTTP, as a `Stream` any connection takes. Same name, call shape and
 * options as `@agentclientprotocol/sdk/experimental/http-client`; the result also carries an acpkit fast link.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { Stream } from "../../jsonrpc/link.js";
import { streamFromLink, type LinkStreamOptions } from "../../transports/link-streams.js";
import { HttpLink, type HttpLinkOptions } from "./http-link.js";

/**
 * Options of `createHttpStream`: the official ones (`fetch`, `headers`, `cookies`, `cookieStore`, `maxMessageBytes`)
 * and acpkit's.
 */
export interface HttpStreamOptions extends HttpLinkOptions, LinkStreamOptions {}

/**
 * Creates an ACP `Stream` over Streamable HTTP at `serverUrl` (e.g. `http://127.0.0.1:8080/acp`): POSTs for
 * client messages, SSE GET streams for agent messages, DELETE on close. The first message must be `initialize`.
 * See `HttpLink` for the routing, error and close contracts. Nothing is sent before the first message.
 */
export function createHttpStream(serverUrl: string, options: HttpStreamOptions = {}): Stream {
  return streamFromLink(new HttpLink(serverUrl, options), options);
}
