/**
 * `acpkit/experimental/server`: a drop-in for `@agentclientprotocol/sdk/experimental/server` (2.4.0). Same exports;
 * `AcpServer` also takes acpkit's options (token, allowed hosts and origins, limits, health path, response headers,
 * connection events). See docs/remote-agents.md.
 */
export {
  AcpServer,
  type AcpServerOptions,
  type AgentFactory,
  type ConnectionLimits,
  type HandleRequestOptions,
  type PrepareWebSocketUpgradeOptions,
  type PreparedWebSocketUpgrade,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_SESSION_STREAMS,
  DEFAULT_MAX_ID_LENGTH,
  DEFAULT_MAX_OUTPUT_STALL_MS,
} from "../transports/remote-server/index.js";
