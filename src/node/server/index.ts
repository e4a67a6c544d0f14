/**
 * The Node side of acpkit's remote server: adapters from `node:http`, `node:https` and `node:http2` to `AcpServer`,
 * WebSocket upgrades through `ws`, the stdio-agent connector, and `listenAcp`.
 */
export {
  createNodeHttpHandler,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  type NodeHttpHandlerOptions,
} from "./node-http-handler.js";
export {
  createNodeWebSocketUpgradeHandler,
  type NodeWebSocketUpgradeOptions,
  type NodeWebSocketUpgradeServer,
  type UpgradedWebSocket,
} from "./node-websocket.js";
export {
  stdioAgentConnector,
  type StdioAgentConnector,
  type StdioAgentConnectorOptions,
} from "./stdio-agent-connector.js";
export { generateToken, listenAcp, type ListenAcpOptions, type ListeningAcpServer, type TlsOptions } from "./listen.js";
export { createCleartextServers, type CleartextServers } from "./cleartext-h2.js";
export { RequestBodyTooLargeError } from "./node-request.js";
export type { SocketAdmissionOptions } from "./socket-admission.js";
