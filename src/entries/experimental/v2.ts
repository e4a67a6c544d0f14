/**
 * `@acpkit/sdk/experimental/v2`: the draft ACP protocol version 2, both sides, a drop-in for
 * `@agentclientprotocol/sdk/experimental/v2`. Draft: the wire protocol and this API may change in any release; the
 * stable entry (`acpkit`) remains ACP v1. Serve v1 and v2 side by side with `agentProtocolRouter()`.
 *
 * In v2 the `session/prompt` response acknowledges the prompt; foreground work and its end arrive as
 * `state_update`s (read as `stop` messages by `ActiveSession`). See
 * https://agentclientprotocol.com/protocol/v2/migration
 */
export type * from "../../protocol/generated/types.v2.js";
export type * from "../../protocol/generated/v2-unstable-extras.js";
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
  METHOD_TABLE,
  v2Schemas as schemas,
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
} from "../../protocol/v2.js";
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES, type NdJsonStreamOptions } from "../../transports/ndjson.js";
export {
  RequestError,
  MessageTooLargeError,
  ProtocolVersionError,
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
  type Stream as WireStream,
} from "../../jsonrpc/index.js";
export type { AgentConnectOptions, AgentConnectionLifecycle, AgentConnector } from "../../acp/agent-connector.js";
export type { ParamsParser } from "../../acp/routes.js";
export type { AppConnection as AcpConnection } from "../../acp/app-types.js";
export type {
  V2AppOptions as AppOptions,
  V2ExtensionMethod as ExtensionMethod,
  UnrecognizedMethod,
  V2Methods,
} from "../../acp/v2/app-types.js";
export type { InitializationSnapshot } from "../../acp/v2/initialization.js";
export { v2Methods as methods } from "../../acp/v2/methods.js";
export { AgentProtocolRouter, agentProtocolRouter } from "../../agent/protocol-router.js";
export { assertSupportedMcpServers } from "../../agent/v2/mcp-servers.js";
export { AgentContext } from "../../agent/v2/agent-context.js";
export {
  agent,
  AgentApp,
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
} from "../../agent/v2/agent-app.js";
export { ClientContext } from "../../client/v2/client-context.js";
export {
  client,
  ClientApp,
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
} from "../../client/v2/client-app.js";
export {
  SessionBuilder,
  ActiveSession,
  type ActiveSessionMessage,
  type ActiveSessionSetConfigOptionRequest,
} from "../../client/v2/active-session.js";
