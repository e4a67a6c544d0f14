/**
 * `@acpkit/sdk/experimental/node`: a drop-in for `@agentclientprotocol/sdk/experimental/node` (2.4.0): the Node HTTP
 * request handler and WebSocket upgrade handler for an `AcpServer`. See docs/remote-agents.md.
 */
export {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  type NodeHttpHandlerOptions,
  type NodeWebSocketUpgradeServer,
} from "../../node/server/index.js";
