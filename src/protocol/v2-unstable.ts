/**
 * The ACP protocol as data, protocol version 2 (draft) with its unstable additions (session/fork, archive, status,
 * set_title, providers/*, auth/status, mcp/message, proxy/*, system prompts, subagents...), generated from
 * `schema/v2/schema.unstable.json`. Same shape of exports as ./v2.ts, plus the proxy methods.
 *
 * Draft and unstable: may change or go away in any release.
 */
export type * from "./generated/types.v2.unstable.js";
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
} from "./generated/guards.v2.unstable.js";
export {
  AGENT_METHODS,
  CLIENT_METHODS,
  METHOD_TABLE,
  PROTOCOL_METHODS,
  PROTOCOL_VERSION,
  PROXY_METHODS,
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
  type ProtocolNotificationMap,
  type ProxyNotificationMap,
  type ProxyRequestMap,
} from "./generated/methods.v2.unstable.js";
export {
  v2UnstableSchemas,
  v2UnstableSchemas as schemas,
  type V2UnstableSchemas,
} from "./generated/validators.v2.unstable.js";
export {
  SchemaValidationError,
  describeValue,
  formatPath,
  type CompiledSchema,
  type ValidationIssue,
} from "./validation.js";
export type { CapabilityGateEntry, HandledBy, MethodEntry, MethodInfo } from "./method-entry.js";
