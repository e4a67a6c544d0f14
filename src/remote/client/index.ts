/**
 * Remote transports (browser-safe): ACP over Streamable HTTP and WebSocket, one `/acp` endpoint, per the transport
 * RFD. Each returns the same `Stream` every acpkit connection takes, with a fast `[LINK]`.
 */
export { createHttpStream, type HttpStreamOptions } from "./http-stream.js";
export { createWebSocketStream, type WebSocketStreamOptions } from "./websocket-stream.js";
export {
  openRemoteStream,
  webSocketUrl,
  type RemoteProfile,
  type RemoteStream,
  type RemoteStreamOptions,
} from "./open-remote.js";
export { MemoryAcpCookieStore, type AcpCookieStore, type MemoryAcpCookieStoreOptions } from "./cookie-store.js";
export { HttpLink, type HttpLinkOptions } from "./http-link.js";
export { WebSocketLink, type WebSocketLinkOptions } from "./websocket-link.js";
export type { WebSocketConstructor, WebSocketLike } from "../websocket-like.js";
export type { RemoteEndpointOptions } from "./http-endpoint.js";
export { SseParser, type SseHandler } from "./sse-parser.js";
export {
  HEADER_CONNECTION_ID,
  HEADER_SESSION_ID,
  JSON_MIME_TYPE,
  EVENT_STREAM_MIME_TYPE,
  DEFAULT_ACP_PATH,
  WEBSOCKET_SUBPROTOCOL,
  BEARER_SUBPROTOCOL_PREFIX,
  bearerSubprotocol,
  tokenFromSubprotocols,
} from "../http-protocol.js";
