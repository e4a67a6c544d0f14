/**
 * `@acpkit/sdk/unstable`: ACP v1 with its unstable additions, a drop-in for `@agentclientprotocol/sdk`'s unstable
 * entry. Unstable features may change in any release; advertise and check capabilities before using them.
 *
 * What it changes, under the same names as `@acpkit/sdk`:
 * - the schema types are the unstable schema's (`session/fork`, `session/archive` and `unarchive`,
 *   `session/status`, `session/set_title`, `providers/*`, `auth/status` and `auth/status_update`, `mcp/message`,
 *   `proxy/*`, and the unstable update kinds and capabilities);
 * - `AGENT_METHODS`, `CLIENT_METHODS`, `METHOD_TABLE`, `methods` and `schemas` (the validators) cover those methods;
 * - `AgentSideConnection` and `ClientSideConnection`, `agent()` and `client()` (`AgentApp`, `ClientApp`) speak the
 *   unstable protocol: its methods are validated and routed.
 *
 * What it adds: `PROXY_METHODS` (and `ProxyRequestMap`, `ProxyNotificationMap`), `unstableSchemas`, and
 * MCP-over-ACP (`mcp/message`): `McpOverAcpProvider` to serve MCP servers to the peer, `McpOverAcpCaller` to call
 * the peer's, `McpServerRegistration`, `isMcpServerAcp`, `parseMcpOutcome`, `withMcpRequestMeta`, the `MCP_*`
 * constants, `McpProtocolError`, `McpBindingErrorCode` and their types.
 *
 * What it leaves to `@acpkit/sdk/remote`: the remote transports (`createHttpStream`, `createWebSocketStream`,
 * `openRemoteStream`, `reconnectingStream`) and the server (`AcpServer`), which carry any protocol flavor.
 */
export type * from "../protocol/generated/types.unstable.js";
export {
  AGENT_METHODS,
  CLIENT_METHODS,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  hasCapability,
  IdleStateUpdate,
  METHOD_TABLE,
  MultiSelectItems,
  peerSupports,
  PROTOCOL_METHODS,
  PROTOCOL_VERSION,
  PROXY_METHODS,
  schemas,
  SchemaValidationError,
  StateUpdate,
  unstableSchemas,
  type AgentNotificationMap,
  type AgentRequestMap,
  type CapabilityGateEntry,
  type ClientNotificationMap,
  type ClientRequestMap,
  type CompiledSchema,
  type HandledBy,
  type MethodEntry,
  type MethodInfo,
  type ProtocolNotificationMap,
  type ProxyNotificationMap,
  type ProxyRequestMap,
  type UnstableSchemas,
  type ValidationIssue,
} from "../protocol/unstable.js";
export {
  answerWithNullId,
  CANCEL_REQUEST_METHOD,
  CapabilityMissingError,
  ConnectionClosedError,
  defaultLogger,
  ErrorCodes,
  InvalidResponseError,
  JsonRpcConnection,
  LINK,
  LocalError,
  MessageTooLargeError,
  OutputBacklogError,
  ProtocolVersionError,
  RequestError,
  RequestTimeoutError,
  ResponseLostError,
  silentLogger,
  TransportFailedError,
  UnserializableValueError,
  type AnyMessage,
  type AnyNotification,
  type AnyRequest,
  type AnyResponse,
  type ConnectionOptions,
  type Dispatcher,
  type ErrorResponse,
  type FrameProblem,
  type IncomingRequestContext,
  type JsonRpcId,
  type LinkReceiver,
  type LocalErrorKind,
  type Logger,
  type MaybePromise,
  type MessageLink,
  type Result,
  type ResultParser,
  type SendRequestOptions,
  type Stream,
  type TapEvent,
  type TapListener,
} from "../jsonrpc/index.js";
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES, type NdJsonStreamOptions } from "../transports/ndjson.js";
export { createMemoryPair, type MemoryPairOptions } from "../transports/memory.js";
export { linkFromStream } from "../transports/stream-link.js";
export { AcpConnection, type AcpConnectionOptions } from "../acp/acp-connection.js";
export type { ProtocolFlavor, Side } from "../acp/flavor.js";
export { stableFlavor, unstableFlavor } from "../acp/flavors.js";
export type { Agent } from "../acp/agent-handler.js";
export type { Client } from "../acp/client-handler.js";
export type { ParamsParser } from "../acp/routes.js";
export { TerminalHandle } from "../agent/terminal-handle.js";
export { unstableMethods as methods } from "../acp/methods.js";
export {
  type AppConnection,
  type AppOptions,
  type ExtensionMethod,
  type HandlerContextBase,
  type HandlerResult,
  type MethodOf,
  type NotificationParamsOf,
  type ProtocolTypes,
  type RequestIdentity,
  type RequestParamsOf,
  type RequestResultOf,
  type StableProtocol,
  type UnstableAppOptions,
  type UnstableProtocol,
} from "../acp/app-types.js";
export type { AgentConnectOptions, AgentConnectionLifecycle, AgentConnector } from "../acp/agent-connector.js";
export {
  AgentContext,
  unstableAgent,
  UnstableAgentApp,
  type AgentConnectHandler,
  type AgentConnection,
  type AgentHandlerContext,
  type AgentNotificationContext,
  type AgentNotificationHandler,
  type AgentNotificationHandlersByMethod,
  type AgentNotificationMethod,
  type AgentNotificationParamsByMethod,
  type AgentRequestContext,
  type AgentRequestHandler,
  type AgentRequestHandlersByMethod,
  type AgentRequestMethod,
  type AgentRequestParamsByMethod,
  type AgentRequestResponsesByMethod,
} from "../agent/agent-app.js";
export {
  ClientContext,
  unstableClient,
  UnstableClientApp,
  type ClientConnectHandler,
  type ClientConnection,
  type ClientHandlerContext,
  type ClientNotificationContext,
  type ClientNotificationHandler,
  type ClientNotificationHandlersByMethod,
  type ClientNotificationMethod,
  type ClientNotificationParamsByMethod,
  type ClientRequestContext,
  type ClientRequestHandler,
  type ClientRequestHandlersByMethod,
  type ClientRequestMethod,
  type ClientRequestParamsByMethod,
  type ClientRequestResponsesByMethod,
} from "../client/client-app.js";
// Here `agent()` and `client()` speak the unstable protocol (as the official SDK's unstable entry does).
export { UnstableAgentApp as AgentApp, unstableAgent as agent } from "../agent/agent-app.js";
export { UnstableClientApp as ClientApp, unstableClient as client } from "../client/client-app.js";
export { SessionBuilder, ActiveSession, type ActiveSessionMessage } from "../client/active-session.js";

// The 1.x classes speaking the unstable protocol: unstable methods are validated and routed.
export { UnstableAgentSideConnection as AgentSideConnection } from "../agent/unstable-agent-side-connection.js";
export { UnstableClientSideConnection as ClientSideConnection } from "../client/unstable-client-side-connection.js";

// MCP-over-ACP (`mcp/message`): serve MCP servers to the peer, call the peer's.
export {
  isMcpServerAcp,
  MCP_MESSAGE_METHOD,
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  MCP_META_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSION,
  McpBindingErrorCode,
  McpOverAcpCaller,
  McpOverAcpProvider,
  McpProtocolError,
  McpServerRegistration,
  parseMcpOutcome,
  withMcpRequestMeta,
  type HasConnectionContext,
  type McpCallerOptions,
  type McpClientInfo,
  type McpErrorObject,
  type McpMessageNotificationContext,
  type McpMessageParams,
  type McpMessageRequestContext,
  type McpNotification,
  type McpOperationContext,
  type McpOutcome,
  type McpRequestHandler,
  type McpRequestOptions,
  type McpServerAcpDeclaration,
  type McpServerOptions,
} from "../acp/mcp/index.js";
