/**
 * acpkit: the Agent Client Protocol, both sides, stable protocol v1. A drop-in for `@agentclientprotocol/sdk`:
 * the same names and call shapes, plus extras (tap, logger, timeouts, capability checks). Browser-safe: Node
 * helpers live in `@acpkit/sdk/node`, unstable protocol additions in `@acpkit/sdk/unstable`.
 */

// Protocol data: every schema type by name, method constants, the method table, validators, guards.
export * from "../protocol/index.js";

// The JSON-RPC engine's public pieces: message types, the two error families, logger, tap.
export * from "../jsonrpc/index.js";

// Transports.
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES, type NdJsonStreamOptions } from "../transports/ndjson.js";
export { createMemoryPair, type MemoryPairOptions } from "../transports/memory.js";
export { linkFromStream } from "../transports/stream-link.js";
export * from "../remote/client/index.js";
export {
  reconnectingStream,
  ReconnectingLink,
  type ReconnectEvent,
  type ReconnectOptions,
  type ReconnectingStream,
} from "../client/reconnect/index.js";

// The ACP core and the 1.x class API.
export { AcpConnection, type AcpConnectionOptions } from "../acp/acp-connection.js";
export type { ProtocolFlavor, Side } from "../acp/flavor.js";
export { stableFlavor, unstableFlavor } from "../acp/flavors.js";
export type { Agent } from "../acp/agent-handler.js";
export type { Client } from "../acp/client-handler.js";
export type { ParamsParser } from "../acp/routes.js";
export { AgentSideConnection } from "../agent/agent-side-connection.js";
export { ClientSideConnection } from "../client/client-side-connection.js";
export { TerminalHandle } from "../agent/terminal-handle.js";

// The 2.x app API.
export { methods } from "../acp/methods.js";
export * from "../acp/app-types.js";
export * from "../agent/agent-app.js";
export * from "../client/client-app.js";
export { SessionBuilder, ActiveSession, type ActiveSessionMessage } from "../client/active-session.js";

// Remote agents, the server side (runtime-neutral; the Node adapters and listenAcp are in @acpkit/sdk/node).
export {
  AcpServer,
  createAcpServer,
  AccessPolicy,
  ConnectionLimitError,
  REMOTE_AGENT_CONTROL,
  remoteAgentControl,
  type AcpServerOptions,
  type AcpServerSettings,
  type AccessOptions,
  type AgentConnectOptions,
  type AgentConnectionLifecycle,
  type AgentConnector,
  type AgentFactory,
  type AgentSource,
  type ConnectionEvent,
  type ConnectionLimits,
  type ConnectionStats,
  type RemoteAgentControl,
  type ResponseHeadersContext,
  type ServerLimits,
  type ServerWebSocket,
  type SocketInfo,
  type StdioMcpPolicy,
} from "../remote/server/index.js";
export { classAgentConnector, type ClassAgentConnectorOptions } from "../agent/remote-connectors.js";
