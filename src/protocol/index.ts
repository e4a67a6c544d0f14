/**
 * The ACP protocol as data (stable schema, v1): wire types, the method table, compiled validators, variant guards,
 * method-name constants and capability gates. Pure data, no I/O; imports nothing outside src/protocol.
 * The unstable schema's equivalents are in ./unstable.ts.
 */
export type * from "./generated/types.js";
export {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  MultiSelectItems,
} from "./generated/guards.js";
export {
  AGENT_METHODS,
  CLIENT_METHODS,
  METHOD_TABLE,
  PROTOCOL_METHODS,
  PROTOCOL_VERSION,
  type AgentNotificationMap,
  type AgentRequestMap,
  type ClientNotificationMap,
  type ClientRequestMap,
  type ProtocolNotificationMap,
} from "./generated/methods.js";
export { schemas, type Schemas } from "./generated/validators.js";
export {
  SchemaValidationError,
  describeValue,
  formatPath,
  type CompiledSchema,
  type ValidationIssue,
} from "./validation.js";
export type { CapabilityGateEntry, HandledBy, MethodEntry, MethodInfo } from "./method-entry.js";
export { hasCapability, peerSupports } from "./capabilities.js";
// Unstable-only names (fork, providers, Usage, plans, subagents...), as types, as the official 1.9.0 root had them.
export * from "./generated/unstable-extras.js";
