/**
 * The runtime-neutral ACP server core: hosts an agent per client connection over Streamable HTTP and WebSocket on
 * fetch-style `Request`/`Response`. Node adapters live in `@acpkit/sdk/node`; the official-shaped entry is
 * `@acpkit/sdk/experimental/server`.
 */
export { createAcpServer } from "./create-acp-server.js";
export {
  AcpServer,
  type AcpServerOptions,
  type AcpServerSettings,
  type AgentSource,
  type ConnectionEvent,
  type ConnectionStats,
  type HandleRequestOptions,
  type PrepareWebSocketUpgradeOptions,
  type PreparedWebSocketUpgrade,
  type ResponseHeadersContext,
  type WebSocketUpgradeCheck,
} from "./acp-server.js";
export { AccessPolicy, constantTimeEqual, isLoopbackAddress, type AccessOptions, type SocketInfo } from "./access.js";
export {
  REMOTE_AGENT_CONTROL,
  remoteAgentControl,
  type AgentConnectOptions,
  type AgentConnectionLifecycle,
  type AgentConnector,
  type AgentFactory,
  type RemoteAgentControl,
} from "../../acp/agent-connector.js";
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_INITIALIZE_TIMEOUT_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_BUFFERED_SESSION_STREAMS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_ID_LENGTH,
  DEFAULT_MAX_OPEN_SESSION_STREAMS,
  DEFAULT_MAX_OUTPUT_STALL_MS,
  DEFAULT_MAX_PENDING_REQUESTS,
  DEFAULT_MAX_REQUEST_BODY_BYTES,
  DEFAULT_MAX_RETAINED_BYTES,
  DEFAULT_MAX_BUFFERED_REQUEST_BYTES,
  DEFAULT_REQUEST_BODY_TIMEOUT_MS,
  resolveLimits,
  type ConnectionLimits,
  type ResolvedLimits,
  type ServerLimits,
} from "./limits.js";
export { ConnectionLimitError, type OutputSink } from "./output-sink.js";
export type { ConnectionEnd, ConnectionTransport, ServerConnection } from "./server-connection.js";
export {
  ServerBackendError,
  type BackendConnection,
  type BackendInitializeInput,
  type BackendInitializeResult,
  type ClientCallInput,
  type ClientMessageInput,
  type ClientResponseInput,
  type HostOptions,
  type NodeBackend,
  type OpenStreamInput,
  type Refusal,
  type ServerBackend,
  type ServerNode,
  type StreamReader,
} from "./backend/backend.js";
export { MemoryServerBackend, type MemoryServerBackendOptions } from "./backend/memory-backend.js";
export { MemoryStreams, type MemoryStreamsHooks } from "./backend/memory-streams.js";
export { parseCursor } from "./backend/retained-queue.js";
export { encodeSse, offsetAfterId, sseEventText } from "./sse-format.js";
export {
  officialBackend,
  type AcpHttpAcceptResult,
  type AcpHttpBackend,
  type AcpHttpLeaseResult,
  type AcpHttpOutboundLease,
  type AcpHttpResponseRoute,
} from "./backend/official-backend.js";
export { InitializeFailure } from "./errors.js";
export type { SharedSessionsOptions, SharedSessionSummary } from "./shared/session-hub.js";
export type { QueueSnapshot } from "./shared/prompt-queue.js";
export type {
  AttachmentRecord,
  RelayEndpoint,
  RelayMessage,
  RemoteClientInfo,
  RestoredSession,
  SessionRelay,
} from "./shared/session-relay.js";
export type { AgentEnd, ClientEnd } from "./shared/participant.js";
export {
  SESSION_ATTACH,
  SESSION_DETACH,
  type HistoryPolicy,
  type ParticipantInfo,
  type ParticipantRole,
} from "./shared/share-protocol.js";
export type { ServerWebSocket, WebSocketFlowControl } from "./server-websocket.js";
export type { WebSocketLike } from "../websocket-like.js";
export type { StdioMcpPolicy } from "./mcp-policy.js";
