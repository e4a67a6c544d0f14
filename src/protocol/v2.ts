/**
 * The ACP protocol as data, protocol version 2 (draft), stable part: wire types, the method table, compiled
 * validators, variant guards and method-name constants, generated from `schema/v2/schema.json`. A standalone set:
 * many names repeat v1's with other shapes (v2 moved capabilities under `capabilities`, made updates upserts, and
 * dropped the client file system and terminals). Pure data, no I/O.
 *
 * Draft: the wire protocol may change in any release. See https://agentclientprotocol.com/protocol/v2/migration
 */
export type * from "./generated/types.v2.js";
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
} from "./generated/guards.v2.js";
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
} from "./generated/methods.v2.js";
export { v2Schemas, v2Schemas as schemas, type V2Schemas } from "./generated/validators.v2.js";
export {
  SchemaValidationError,
  describeValue,
  formatPath,
  type CompiledSchema,
  type ValidationIssue,
} from "./validation.js";
export type { CapabilityGateEntry, HandledBy, MethodEntry, MethodInfo } from "./method-entry.js";
// Unstable-only names, as types, as the official 1.9.0's v2 entry had them.
export type * from "./generated/v2-unstable-extras.js";

declare const unknownVariant: unique symbol;

/**
 * A variant of a union this version does not know (a newer peer's), as received: the official SDK brands such
 * values in its types so they cannot be built by hand. acpkit's readers keep them as they came (tolerant reader).
 */
export type UnknownVariant<T> = T & { readonly [unknownVariant]: true };
