/**
 * `@acpkit/sdk/experimental/ws-client`: the same value and type exports as
 * `@agentclientprotocol/sdk/experimental/ws-client` (2.4.0). Code written against it runs unchanged with this import.
 * Entry file only: no logic here.
 */
export { createWebSocketStream, type WebSocketStreamOptions } from "../../remote/client/websocket-stream.js";
export { MemoryAcpCookieStore, type AcpCookieStore } from "../../remote/client/cookie-store.js";
export type { WebSocketConstructor, WebSocketLike } from "../../remote/websocket-like.js";
