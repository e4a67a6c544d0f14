/**
 * The client toolkit's browser-safe pieces: a session model folded from `session/update` (`Transcript`, routed per
 * session by `TranscriptRouter`) and permission policies run by a `PermissionBroker`. No I/O, no `node:*`.
 */
export {
  Transcript,
  Transcript as SessionModel,
  type BeginTurnOptions,
  type SessionSetup,
  type TranscriptOptions,
} from "./transcript.js";
export type {
  EntryBase,
  MessageEntry,
  MessageRole,
  Meta,
  PlanSnapshotEntry,
  SessionInfo,
  SessionState,
  StateField,
  ToolCallEntry,
  ToolCallState,
  TranscriptChange,
  TranscriptEntry,
  TranscriptListener,
  Turn,
  UnknownUpdate,
  Usage,
} from "./transcript-types.js";
export { appendContent, isFinished, mergeToolCall, patchInfo, textOf, toUsage } from "./fold-update.js";
export { TranscriptRouter, type TranscriptRouterOptions } from "./transcript-router.js";
export {
  CANCELLED_RESPONSE,
  PermissionTimeoutError,
  READ_KINDS,
  allowAll,
  allowReads,
  decide,
  denyAll,
  failClosed,
  findOption,
  interactive,
  isValidAnswer,
  selectOption,
  selectedKind,
  withMemory,
  withTimeout,
  type AskAnswer,
  type MemoryPolicy,
  type PermissionContext,
  type PermissionDecision,
  type PermissionPolicy,
} from "./permission-policy.js";
export {
  globToRegExp,
  normalizePath,
  pathMatcher,
  requestPaths,
  rules,
  type PermissionRule,
  type RulesOptions,
} from "./permission-rules.js";
export { PermissionBroker, type PendingPermission, type PermissionBrokerOptions } from "./permission-broker.js";
export {
  brokerGate,
  hostAccessRequest,
  HOST_CALL_PREFIX,
  type BrokerGateOptions,
  type HostAccess,
  type HostGate,
} from "./host-gate.js";
export {
  TurnGuard,
  type GuardedConnection,
  type GuardedPromptResponse,
  type TurnGuardOptions,
  type TurnViolation,
  type UpdatePlacement,
} from "./turn-guard.js";
export { sanitizeTerminalText, terminalSafeJson, TerminalTextFilter } from "./terminal-text.js";
export {
  attachSession,
  detachSession,
  ParticipantsView,
  type AttachSessionOptions,
  type AttachSessionResult,
  type ObservedPermission,
  type RawRequester,
  type ResolvedPermission,
  type SessionParticipant,
} from "./shared-session.js";
