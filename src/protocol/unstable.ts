/**
 * The ACP protocol as data, unstable schema (v1 plus unstable methods and fields: session/fork, archive, status,
 * set_title, providers/*, auth/status, mcp/message, proxy/*, plan updates, subagents, ...). A full standalone set: some
 * defs differ from the stable ones of the same name. Same shape of exports as ./index.ts, plus `unstableSchemas` (also
 * exported as `schemas`).
 */
export type * from "./generated/types.unstable.js";
export {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  IdleStateUpdate,
  MultiSelectItems,
  StateUpdate,
} from "./generated/guards.unstable.js";
export {
  AGENT_METHODS,
  CLIENT_METHODS,
  METHOD_TABLE,
  PROTOCOL_METHODS,
  PROTOCOL_VERSION,
  PROXY_METHODS,
  type ProxyNotificationMap,
  type ProxyRequestMap,
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
  type ProtocolNotificationMap,
} from "./generated/methods.unstable.js";
export { unstableSchemas, unstableSchemas as schemas, type UnstableSchemas } from "./generated/validators.unstable.js";
export {
  SchemaValidationError,
  describeValue,
  formatPath,
  type CompiledSchema,
  type ValidationIssue,
} from "./validation.js";
export type { CapabilityGateEntry, HandledBy, MethodEntry, MethodInfo } from "./method-entry.js";
export { hasCapability, peerSupports } from "./capabilities.js";
