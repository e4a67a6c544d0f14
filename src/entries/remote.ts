/**
 * `@acpkit/sdk/remote`: agents over the network, both ends, runtime-neutral (browsers, Node, Deno, Bun, workers).
 * The client transports (`createHttpStream` for Streamable HTTP, `createWebSocketStream`, `openRemoteStream`, and
 * `reconnectingStream` that resumes a dropped one) and the server (`AcpServer`, `createAcpServer`: any agent behind one
 * HTTP endpoint and its WebSocket, with its backends, access policy and shared sessions). The streams plug into the
 * connections and apps of `@acpkit/sdk`; `listenAcp` (a server on node:http) is in `@acpkit/sdk/node`.
 *
 * Kept out of the root entry so that a program that only speaks ACP over stdio does not load them (the root's import
 * is what every agent and editor pays at start: `npm run bench`, (s) cold start). See docs/remote-agents.md.
 */

// The client side.
export {
  bearerSubprotocol,
  createHttpStream,
  createWebSocketStream,
  DEFAULT_ACP_PATH,
  HEADER_CONNECTION_ID,
  HEADER_SESSION_ID,
  HttpLink,
  MemoryAcpCookieStore,
  openRemoteStream,
  WEBSOCKET_SUBPROTOCOL,
  WebSocketLink,
  webSocketUrl,
  type AcpCookieStore,
  type HttpLinkOptions,
  type HttpStreamOptions,
  type MemoryAcpCookieStoreOptions,
  type RemoteEndpointOptions,
  type RemoteProfile,
  type RemoteStream,
  type RemoteStreamOptions,
  type WebSocketConstructor,
  type WebSocketLike,
  type WebSocketLinkOptions,
  type WebSocketStreamOptions,
} from "../remote/client/index.js";
export {
  reconnectingStream,
  ReconnectingLink,
  type ReconnectEvent,
  type ReconnectOptions,
  type ReconnectingStream,
} from "../client/reconnect/index.js";

// The server side: any agent behind one HTTP endpoint (the Node adapters and listenAcp are in @acpkit/sdk/node).
export {
  AcpServer,
  createAcpServer,
  AccessPolicy,
  ConnectionLimitError,
  MemoryServerBackend,
  ServerBackendError,
  REMOTE_AGENT_CONTROL,
  remoteAgentControl,
  type AcpHttpBackend,
  type AcpServerOptions,
  type AcpServerSettings,
  type AccessOptions,
  type AgentConnectOptions,
  type AgentConnectionLifecycle,
  type AgentConnector,
  type AgentFactory,
  type AgentSource,
  type BackendConnection,
  type ConnectionEvent,
  type ConnectionLimits,
  type ConnectionStats,
  type MemoryServerBackendOptions,
  type NodeBackend,
  type RemoteAgentControl,
  type ServerBackend,
  type ServerNode,
  type StreamReader,
  type ResponseHeadersContext,
  type ServerLimits,
  type ServerWebSocket,
  type SocketInfo,
  type StdioMcpPolicy,
  type SharedSessionsOptions,
  type SharedSessionSummary,
  type QueueSnapshot,
  type RelayEndpoint,
  type RelayMessage,
  type RemoteClientInfo,
  type SessionRelay,
  type AttachmentRecord,
  type RestoredSession,
  type AgentEnd,
  type ClientEnd,
  type HistoryPolicy,
  type ParticipantInfo,
  type ParticipantRole,
} from "../remote/server/index.js";
export { classAgentConnector, type ClassAgentConnectorOptions } from "../agent/remote-connectors.js";
