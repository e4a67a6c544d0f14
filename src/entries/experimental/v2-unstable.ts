/**
 * `@acpkit/sdk/experimental/v2/unstable`: the draft ACP protocol version 2 with its unstable additions (session/fork,
 * archive, status, set_title, providers, auth/status, MCP-over-ACP, proxies...), a drop-in for
 * `@agentclientprotocol/sdk/experimental/v2/unstable`. The same API as `@acpkit/sdk/experimental/v2`, typed and
 * validated by v2's unstable schema. Draft and unstable: may change in any release.
 */
import type { V2UnstableProtocol } from "../../acp/v2/app-types.js";
import type * as base from "./v2.js";

export type * from "../../protocol/generated/types.v2.unstable.js";
export type { UnknownVariant } from "../../protocol/v2.js";
export {
  AuthMethod,
  AvailableCommand,
  AvailableCommandInput,
  BackgroundWork,
  ContentBlock,
  CreateElicitationRequest,
  CreateElicitationResponse,
  DiffChange,
  ElicitationPropertySchema,
  IdleStateUpdate,
  McpServer,
  MultiSelectItems,
  PlanUpdateContent,
  ReplayFrom,
  RequestPermissionOutcome,
  RequestPermissionSubject,
  SessionConfigOption,
  SessionUpdate,
  SetSessionConfigOptionRequest,
  StateUpdate,
  ToolCallContent,
  AGENT_METHODS,
  CLIENT_METHODS,
  PROTOCOL_METHODS,
  PROTOCOL_VERSION,
  PROXY_METHODS,
  METHOD_TABLE,
  v2UnstableSchemas as schemas,
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
  type ProxyNotificationMap,
  type ProxyRequestMap,
} from "../../protocol/v2-unstable.js";
export {
  ndJsonStream,
  DEFAULT_MAX_MESSAGE_BYTES,
  RequestError,
  MessageTooLargeError,
  ProtocolVersionError,
  AgentProtocolRouter,
  agentProtocolRouter,
  AgentContext,
  ClientContext,
  SessionBuilder,
  ActiveSession,
  type NdJsonStreamOptions,
  type AnyMessage,
  type AnyNotification,
  type AnyRequest,
  type AnyResponse,
  type ErrorResponse,
  type JsonRpcId,
  type MaybePromise,
  type Result,
  type SendRequestOptions,
  type Stream,
  type AgentConnectOptions,
  type AgentConnectionLifecycle,
  type AgentConnector,
  type ParamsParser,
  type AcpConnection,
  type AppOptions,
  type ExtensionMethod,
  type InitializationSnapshot,
  type ActiveSessionMessage,
  type ActiveSessionSetConfigOptionRequest,
} from "./v2.js";
export { v2UnstableMethods as methods } from "../../acp/v2/methods.js";
export type { V2UnstableMethods, V2UnstableProtocol } from "../../acp/v2/app-types.js";
export { assertSupportedUnstableMcpServers as assertSupportedMcpServers } from "../../agent/v2/mcp-servers.js";
export { UnstableV2AgentApp as AgentApp, unstableV2Agent as agent } from "../../agent/v2/unstable-agent-app.js";
export { UnstableV2ClientApp as ClientApp, unstableV2Client as client } from "../../client/v2/unstable-client-app.js";

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
} from "../../acp/mcp/index.js";

// The app types of this entry default to the unstable method maps.
export type UnrecognizedMethod<M extends string> = base.UnrecognizedMethod<M, V2UnstableProtocol>;
export type AgentConnection = base.AgentConnection<V2UnstableProtocol>;
export type AgentConnectHandler = base.AgentConnectHandler<V2UnstableProtocol>;
export type AgentHandlerContext<Params> = base.AgentHandlerContext<Params, V2UnstableProtocol>;
export type AgentRequestContext<Params> = base.AgentRequestContext<Params, V2UnstableProtocol>;
export type AgentNotificationContext<Params> = base.AgentNotificationContext<Params, V2UnstableProtocol>;
export type AgentRequestHandler<Params, Response> = base.AgentRequestHandler<Params, Response, V2UnstableProtocol>;
export type AgentNotificationHandler<Params> = base.AgentNotificationHandler<Params, V2UnstableProtocol>;
export type AgentRequestMethod = base.AgentRequestMethod<V2UnstableProtocol>;
export type AgentNotificationMethod = base.AgentNotificationMethod<V2UnstableProtocol>;
export type AgentRequestHandlersByMethod = base.AgentRequestHandlersByMethod<V2UnstableProtocol>;
export type AgentNotificationHandlersByMethod = base.AgentNotificationHandlersByMethod<V2UnstableProtocol>;
export type AgentRequestParamsByMethod = base.AgentRequestParamsByMethod<V2UnstableProtocol>;
export type AgentRequestResponsesByMethod = base.AgentRequestResponsesByMethod<V2UnstableProtocol>;
export type AgentNotificationParamsByMethod = base.AgentNotificationParamsByMethod<V2UnstableProtocol>;
export type ClientConnection = base.ClientConnection<V2UnstableProtocol>;
export type ClientConnectHandler = base.ClientConnectHandler<V2UnstableProtocol>;
export type ClientHandlerContext<Params> = base.ClientHandlerContext<Params, V2UnstableProtocol>;
export type ClientRequestContext<Params> = base.ClientRequestContext<Params, V2UnstableProtocol>;
export type ClientNotificationContext<Params> = base.ClientNotificationContext<Params, V2UnstableProtocol>;
export type ClientRequestHandler<Params, Response> = base.ClientRequestHandler<Params, Response, V2UnstableProtocol>;
export type ClientNotificationHandler<Params> = base.ClientNotificationHandler<Params, V2UnstableProtocol>;
export type ClientRequestMethod = base.ClientRequestMethod<V2UnstableProtocol>;
export type ClientNotificationMethod = base.ClientNotificationMethod<V2UnstableProtocol>;
export type ClientRequestHandlersByMethod = base.ClientRequestHandlersByMethod<V2UnstableProtocol>;
export type ClientNotificationHandlersByMethod = base.ClientNotificationHandlersByMethod<V2UnstableProtocol>;
export type ClientRequestParamsByMethod = base.ClientRequestParamsByMethod<V2UnstableProtocol>;
export type ClientRequestResponsesByMethod = base.ClientRequestResponsesByMethod<V2UnstableProtocol>;
export type ClientNotificationParamsByMethod = base.ClientNotificationParamsByMethod<V2UnstableProtocol>;
