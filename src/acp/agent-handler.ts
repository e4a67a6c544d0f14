import type { IncomingRequestContext } from "../jsonrpc/index.js";
import type { MaybePromise } from "../jsonrpc/messages.js";
import type * as schema from "../protocol/index.js";
import type * as unstable from "../protocol/unstable.js";

/**
 * What an agent implements, for the 1.x class API (`AgentSideConnection`): one method per request or notification
 * the client sends. Optional methods that are absent answer -32601, so advertise only what you implement.
 * Same names and shapes as `@agentclientprotocol/sdk`'s `Agent`.
 */
export interface Agent {
  initialize(params: schema.InitializeRequest): MaybePromise<schema.InitializeResponse>;
  newSession(params: schema.NewSessionRequest): MaybePromise<schema.NewSessionResponse>;
  loadSession?(params: schema.LoadSessionRequest): MaybePromise<schema.LoadSessionResponse | void>;
  unstable_forkSession?(params: unstable.ForkSessionRequest): MaybePromise<unstable.ForkSessionResponse>;
  listSessions?(params: schema.ListSessionsRequest): MaybePromise<schema.ListSessionsResponse>;
  deleteSession?(params: schema.DeleteSessionRequest): MaybePromise<schema.DeleteSessionResponse | void>;
  resumeSession?(params: schema.ResumeSessionRequest): MaybePromise<schema.ResumeSessionResponse>;
  closeSession?(params: schema.CloseSessionRequest): MaybePromise<schema.CloseSessionResponse | void>;
  setSessionMode?(params: schema.SetSessionModeRequest): MaybePromise<schema.SetSessionModeResponse | void>;
  setSessionConfigOption?(
    params: schema.SetSessionConfigOptionRequest,
  ): MaybePromise<schema.SetSessionConfigOptionResponse>;
  authenticate(params: schema.AuthenticateRequest): MaybePromise<schema.AuthenticateResponse | void>;
  unstable_listProviders?(params: unstable.ListProvidersRequest): MaybePromise<unstable.ListProvidersResponse>;
  unstable_setProvider?(params: unstable.SetProviderRequest): MaybePromise<unstable.SetProviderResponse | void>;
  unstable_disableProvider?(
    params: unstable.DisableProviderRequest,
  ): MaybePromise<unstable.DisableProviderResponse | void>;
  logout?(params: schema.LogoutRequest): MaybePromise<schema.LogoutResponse | void>;
  /** `session/archive` (unstable; `sessionCapabilities.archive`). */
  unstable_archiveSession?(
    params: unstable.ArchiveSessionRequest,
  ): MaybePromise<unstable.ArchiveSessionResponse | void>;
  /** `session/unarchive` (unstable; `sessionCapabilities.archive`). */
  unstable_unarchiveSession?(
    params: unstable.UnarchiveSessionRequest,
  ): MaybePromise<unstable.UnarchiveSessionResponse | void>;
  /** `session/set_title` (unstable; `sessionCapabilities.title`). */
  unstable_setSessionTitle?(
    params: unstable.SetSessionTitleRequest,
  ): MaybePromise<unstable.SetSessionTitleResponse | void>;
  /** `session/status` (unstable; `sessionCapabilities.status`). MUST NOT have side effects. */
  unstable_sessionStatus?(params: unstable.SessionStatusRequest): MaybePromise<unstable.SessionStatusResponse>;
  /** `auth/status` (unstable; `auth.status`). MUST NOT answer `auth_required`. */
  unstable_authStatus?(params: unstable.AuthStatusRequest): MaybePromise<unstable.AuthStatusResponse>;
  /** `mcp/message` notifications from the client (MCP-over-ACP, unstable; `mcpCapabilities.acp`). */
  unstable_mcpMessage?(params: unstable.MessageMcpNotification): MaybePromise<void>;
  /**
   * Runs a prompt turn. acpkit passes the request's context as a second argument (its `signal` aborts on a
   * `$/cancel_request` for this prompt or when the connection closes); code written for the official SDK ignores it.
   */
  prompt(params: schema.PromptRequest, context?: IncomingRequestContext): MaybePromise<schema.PromptResponse>;
  cancel(params: schema.CancelNotification): MaybePromise<void>;
  /** Any other request from the client (extension methods such as `_acme/x`), with its full method name. */
  extMethod?(method: string, params: Record<string, unknown>): MaybePromise<Record<string, unknown>>;
  /** Any other notification from the client, with its full method name. */
  extNotification?(method: string, params: Record<string, unknown>): MaybePromise<void>;
}

/** Which `Agent` method handles which wire method. API names, not wire shapes: the shapes come from the schema. */
export const AGENT_HANDLER_NAMES: ReadonlyArray<
  readonly [method: string, handler: keyof Agent, kind: "request" | "notification"]
> = [
  ["initialize", "initialize", "request"],
  ["authenticate", "authenticate", "request"],
  ["logout", "logout", "request"],
  ["session/new", "newSession", "request"],
  ["session/load", "loadSession", "request"],
  ["session/list", "listSessions", "request"],
  ["session/delete", "deleteSession", "request"],
  ["session/resume", "resumeSession", "request"],
  ["session/close", "closeSession", "request"],
  ["session/set_mode", "setSessionMode", "request"],
  ["session/set_config_option", "setSessionConfigOption", "request"],
  ["session/prompt", "prompt", "request"],
  ["session/cancel", "cancel", "notification"],
  ["session/fork", "unstable_forkSession", "request"],
  ["providers/list", "unstable_listProviders", "request"],
  ["providers/set", "unstable_setProvider", "request"],
  ["providers/disable", "unstable_disableProvider", "request"],
  ["session/archive", "unstable_archiveSession", "request"],
  ["session/unarchive", "unstable_unarchiveSession", "request"],
  ["session/set_title", "unstable_setSessionTitle", "request"],
  ["session/status", "unstable_sessionStatus", "request"],
  ["auth/status", "unstable_authStatus", "request"],
  ["mcp/message", "unstable_mcpMessage", "notification"],
];
