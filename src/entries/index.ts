/**
 * acpkit: the Agent Client Protocol, both sides, stable protocol v1. A drop-in for `@agentclientprotocol/sdk`:
 * the same names and call shapes, plus extras (tap, logger, timeouts, capability checks). Browser-safe: Node
 * helpers live in `@acpkit/sdk/node`, unstable protocol additions in `@acpkit/sdk/unstable`, agents over the network
 * (Streamable HTTP and WebSocket clients, `AcpServer`) in `@acpkit/sdk/remote`.
 */

// Protocol data: every schema type by name, method constants, the method table, validators, guards.
export type * from "../protocol/generated/types.js";
export type * from "../protocol/generated/unstable-extras.js";
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
  schemas,
  SchemaValidationError,
  StateUpdate,
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
  type Schemas,
  type ValidationIssue,
} from "../protocol/index.js";

// The JSON-RPC engine's public pieces: message types, the two error families, logger, tap.
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

// Transports.
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES, type NdJsonStreamOptions } from "../transports/ndjson.js";
export { createMemoryPair, type MemoryPairOptions } from "../transports/memory.js";
export { linkFromStream } from "../transports/stream-link.js";

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
export {
  agent,
  AgentApp,
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
  client,
  ClientApp,
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
export { SessionBuilder, ActiveSession, type ActiveSessionMessage } from "../client/active-session.js";
// What an agent behind a server is made of (as in the official root; the server itself is in @acpkit/sdk/remote).
export type { AgentConnectOptions, AgentConnectionLifecycle, AgentConnector } from "../acp/agent-connector.js";
