/**
 * The agent toolkit: sessions with persistence and replay, prompt turns with cancellation, tool calls,
 * permissions and plans, on top of the 1.x `AgentSideConnection` (or any `ClientPort`). Browser-safe; the on-disk
 * store is `FileSessionStore` in `@acpkit/sdk/node`.
 */
export { toolkitAgent, type ToolkitAgent, type ToolkitAgentOptions } from "./toolkit-agent.js";
export {
  SessionManager,
  isAbsolutePath,
  type SessionManagerOptions,
  type SessionStateContext,
} from "./session-manager.js";
export { ToolkitSession, type ClientPort, type SessionInit, type SessionOrigin } from "./session.js";
export { replayHistory, REPLAY_META_KEY, type ReplayReport } from "./replay.js";
export {
  PromptTurn,
  TurnSlot,
  runPromptTurn,
  type PromptHandler,
  type RunTurnOptions,
  type TurnPolicy,
  type TurnResult,
} from "./prompt-turn.js";
export { TurnCancelledError, isAbortError } from "./cancelled.js";
export {
  ToolCallHandle,
  ToolCallTracker,
  diffContent,
  terminalContent,
  textContent,
  type ToolCallInit,
  type ToolCallPatch,
  type UpdateSink,
} from "./tool-calls.js";
export {
  ONCE_PERMISSION_OPTIONS,
  PERMISSION_OPTIONS,
  PermissionMemory,
  STANDARD_PERMISSION_OPTIONS,
  askPermission,
  type PermissionContext,
  type PermissionDecision,
} from "./permissions.js";
export { PlanTracker } from "./plan.js";
export {
  DEFAULT_PAGE_SIZE,
  compareSessions,
  pageSessions,
  type SessionListQuery,
  type SessionMetadataPatch,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type StoredSession,
} from "./session-store.js";
export { MemorySessionStore } from "./memory-session-store.js";
export {
  MODE_OPTION_ID,
  checkModeId,
  modeSelectOption,
  modeState,
  modesFromOption,
  selectValues,
  validateModes,
  type ModeDeclaration,
  type ModeOptionLabel,
} from "./modes.js";
export {
  SETTINGS_RECORD_KEY,
  SessionSettings,
  resolveSettings,
  supportsBooleanOptions,
  type ChangeSource,
  type ConfigChange,
  type ConfigValue,
  type ModeChange,
  type SessionSettingsDeclaration,
} from "./config-options.js";
export {
  SessionCommands,
  availableCommand,
  parseCommand,
  validateCommands,
  type ParsedCommand,
  type SlashCommand,
} from "./commands.js";
export {
  ClientTerminal,
  createTerminal,
  readFile,
  requireClientCapability,
  runCommand,
  writeFile,
  type ClientAccessContext,
  type RunCommandOptions,
  type RunCommandResult,
  type TerminalOptions,
} from "./client-access.js";
export {
  completeElicitation,
  elicit,
  supportsElicitation,
  type ElicitRequest,
  type ElicitResult,
  type FormElicitation,
  type UrlElicitation,
} from "./elicitation.js";
export { UsageMeter, usageUpdate, type UsageReport } from "./usage.js";
export type {
  McpConnectContext,
  McpConnector,
  McpServerStatus,
  McpSessionTools,
  McpToolInfo,
  McpToolResult,
} from "./mcp-connector.js";
