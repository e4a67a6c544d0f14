/** MCP-over-ACP: the binding's data, the serving side (provider) and the calling side (caller). */
export {
  MCP_MESSAGE_METHOD,
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  MCP_META_PROTOCOL_VERSION,
  MCP_PROTOCOL_VERSION,
  McpBindingErrorCode,
  McpProtocolError,
  isMcpServerAcp,
  parseMcpOutcome,
  withMcpRequestMeta,
  type HasConnectionContext,
  type McpCallerOptions,
  type McpClientInfo,
  type McpErrorObject,
  type McpMessageParams,
  type McpNotification,
  type McpOutcome,
  type McpServerAcpDeclaration,
} from "./binding.js";
export {
  McpOverAcpProvider,
  McpServerRegistration,
  type McpMessageRequestContext,
  type McpOperationContext,
  type McpRequestHandler,
  type McpServerOptions,
} from "./provider.js";
export { McpOverAcpCaller, type McpMessageNotificationContext, type McpRequestOptions } from "./caller.js";
