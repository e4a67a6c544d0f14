/**
 * `@acpkit/sdk/experimental/nes`: the unstable protocol plus Next Edit Suggestions (`nes/*`) and document sync
 * (`document/*`), a drop-in for `@agentclientprotocol/sdk/experimental/nes`. Everything `@acpkit/sdk/unstable` exports,
 * with `agent()` / `client()` / `methods` / `AGENT_METHODS` knowing the NES methods, the NES types, `validate`
 * (`z<Name>` for every NES definition) and the NES capability schemas. Unstable: may change in any release.
 */
import type * as base from "../unstable.js";
import type { NesProtocol } from "../../acp/nes-protocol.js";

export type * from "../../protocol/generated/types.unstable.js";
export {
  AcpConnection,
  ActiveSession,
  AgentContext,
  AgentSideConnection,
  answerWithNullId,
  CANCEL_REQUEST_METHOD,
  CapabilityMissingError,
  CLIENT_METHODS,
  ClientContext,
  ClientSideConnection,
  ConnectionClosedError,
  CreateElicitationRequest,
  CreateElicitationResponse,
  createMemoryPair,
  DEFAULT_MAX_MESSAGE_BYTES,
  defaultLogger,
  ElicitationPropertySchema,
  ErrorCodes,
  hasCapability,
  IdleStateUpdate,
  InvalidResponseError,
  isMcpServerAcp,
  JsonRpcConnection,
  LINK,
  linkFromStream,
  LocalError,
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
  MessageTooLargeError,
  METHOD_TABLE,
  MultiSelectItems,
  ndJsonStream,
  OutputBacklogError,
  parseMcpOutcome,
  peerSupports,
  PROTOCOL_METHODS,
  PROTOCOL_VERSION,
  ProtocolVersionError,
  PROXY_METHODS,
  RequestError,
  RequestTimeoutError,
  ResponseLostError,
  schemas,
  SchemaValidationError,
  SessionBuilder,
  silentLogger,
  stableFlavor,
  StateUpdate,
  TerminalHandle,
  TransportFailedError,
  UnserializableValueError,
  unstableAgent,
  UnstableAgentApp,
  unstableClient,
  UnstableClientApp,
  unstableFlavor,
  unstableSchemas,
  withMcpRequestMeta,
  type AcpConnectionOptions,
  type ActiveSessionMessage,
  type Agent,
  type AgentConnectHandler,
  type AgentConnection,
  type AgentConnectionLifecycle,
  type AgentConnectOptions,
  type AgentConnector,
  type AgentHandlerContext,
  type AgentNotificationContext,
  type AgentNotificationHandler,
  type AgentNotificationMap,
  type AgentRequestContext,
  type AgentRequestHandler,
  type AgentRequestMap,
  type AnyMessage,
  type AnyNotification,
  type AnyRequest,
  type AnyResponse,
  type AppConnection,
  type AppOptions,
  type CapabilityGateEntry,
  type Client,
  type ClientNotificationMap,
  type ClientNotificationMethod,
  type ClientNotificationParamsByMethod,
  type ClientRequestMap,
  type ClientRequestMethod,
  type ClientRequestParamsByMethod,
  type ClientRequestResponsesByMethod,
  type CompiledSchema,
  type ConnectionOptions,
  type Dispatcher,
  type ErrorResponse,
  type ExtensionMethod,
  type FrameProblem,
  type HandledBy,
  type HandlerContextBase,
  type HandlerResult,
  type HasConnectionContext,
  type IncomingRequestContext,
  type JsonRpcId,
  type LinkReceiver,
  type LocalErrorKind,
  type Logger,
  type MaybePromise,
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
  type MemoryPairOptions,
  type MessageLink,
  type MethodEntry,
  type MethodInfo,
  type MethodOf,
  type NdJsonStreamOptions,
  type NotificationParamsOf,
  type ParamsParser,
  type ProtocolFlavor,
  type ProtocolNotificationMap,
  type ProtocolTypes,
  type ProxyNotificationMap,
  type ProxyRequestMap,
  type RequestIdentity,
  type RequestParamsOf,
  type RequestResultOf,
  type Result,
  type ResultParser,
  type SendRequestOptions,
  type Side,
  type StableProtocol,
  type Stream,
  type TapEvent,
  type TapListener,
  type UnstableAppOptions,
  type UnstableProtocol,
  type UnstableSchemas,
  type ValidationIssue,
} from "../unstable.js";
export type { SessionId } from "../unstable.js";
export type * from "../../protocol/generated/types.nes.js";
export type {
  AgentCapabilities,
  ClientCapabilities,
  InitializeRequest,
  InitializeResponse,
} from "../../protocol/nes.js";
export type { ZodLikeSchema, NesValidate } from "../../protocol/nes-validate.js";
export {
  NES_ENTRY_AGENT_METHODS as AGENT_METHODS,
  validate,
  zAgentCapabilities,
  zClientCapabilities,
  zInitializeRequest,
  zInitializeResponse,
} from "../../protocol/nes-validate.js";
export { nesMethods as methods, type NesMethods } from "../../acp/methods.js";
export type { NesProtocol } from "../../acp/nes-protocol.js";
export { NesAgentApp as AgentApp, nesAgent as agent } from "../../agent/nes-agent-app.js";
export { NesClientApp as ClientApp, nesClient as client } from "../../client/nes-client-app.js";

// The app types of this entry default to the NES method maps.
export type AgentRequestMethod = base.AgentRequestMethod<NesProtocol>;
export type AgentNotificationMethod = base.AgentNotificationMethod<NesProtocol>;
export type AgentRequestHandlersByMethod = base.AgentRequestHandlersByMethod<NesProtocol>;
export type AgentNotificationHandlersByMethod = base.AgentNotificationHandlersByMethod<NesProtocol>;
export type AgentRequestParamsByMethod = base.AgentRequestParamsByMethod<NesProtocol>;
export type AgentRequestResponsesByMethod = base.AgentRequestResponsesByMethod<NesProtocol>;
export type AgentNotificationParamsByMethod = base.AgentNotificationParamsByMethod<NesProtocol>;
export type ClientConnection = base.ClientConnection<NesProtocol>;
export type ClientConnectHandler = base.ClientConnectHandler<NesProtocol>;
export type ClientHandlerContext<Params> = base.ClientHandlerContext<Params, NesProtocol>;
export type ClientRequestContext<Params> = base.ClientRequestContext<Params, NesProtocol>;
export type ClientNotificationContext<Params> = base.ClientNotificationContext<Params, NesProtocol>;
export type ClientRequestHandler<Params, Response> = base.ClientRequestHandler<Params, Response, NesProtocol>;
export type ClientNotificationHandler<Params> = base.ClientNotificationHandler<Params, NesProtocol>;
export type ClientRequestHandlersByMethod = base.ClientRequestHandlersByMethod<NesProtocol>;
export type ClientNotificationHandlersByMethod = base.ClientNotificationHandlersByMethod<NesProtocol>;
