import type { MaybePromise } from "../jsonrpc/messages.js";
import type * as schema from "../protocol/index.js";
import type * as unstable from "../protocol/unstable.js";

/**
 * What a client implements, for the 1.x class API (`ClientSideConnection`): one method per request or notification
 * the agent sends. Optional methods that are absent answer -32601: implement those whose capability you advertise.
 * Same names and shapes as `@agentclientprotocol/sdk`'s `Client`.
 */
export interface Client {
  requestPermission(params: schema.RequestPermissionRequest): MaybePromise<schema.RequestPermissionResponse>;
  sessionUpdate(params: schema.SessionNotification): MaybePromise<void>;
  writeTextFile?(params: schema.WriteTextFileRequest): MaybePromise<schema.WriteTextFileResponse | void>;
  readTextFile?(params: schema.ReadTextFileRequest): MaybePromise<schema.ReadTextFileResponse>;
  createTerminal?(params: schema.CreateTerminalRequest): MaybePromise<schema.CreateTerminalResponse>;
  terminalOutput?(params: schema.TerminalOutputRequest): MaybePromise<schema.TerminalOutputResponse>;
  releaseTerminal?(params: schema.ReleaseTerminalRequest): MaybePromise<schema.ReleaseTerminalResponse | void>;
  waitForTerminalExit?(params: schema.WaitForTerminalExitRequest): MaybePromise<schema.WaitForTerminalExitResponse>;
  killTerminal?(params: schema.KillTerminalRequest): MaybePromise<schema.KillTerminalResponse | void>;
  createElicitation?(params: schema.CreateElicitationRequest): MaybePromise<schema.CreateElicitationResponse>;
  completeElicitation?(params: schema.CompleteElicitationNotification): MaybePromise<void>;
  /** `auth/status_update` (unstable): the agent's authentication state changed. */
  unstable_authStatusUpdate?(params: unstable.AuthStatusUpdateNotification): MaybePromise<void>;
  /**
   * `mcp/message` requests from the agent (MCP-over-ACP, unstable): an MCP request for a server the client provides.
   */
  unstable_mcpMessage?(params: unstable.MessageMcpRequest): MaybePromise<unstable.MessageMcpResponse>;
  /** Any other request from the agent (extension methods such as `_acme/x`), with its full method name. */
  extMethod?(method: string, params: Record<string, unknown>): MaybePromise<Record<string, unknown>>;
  /** Any other notification from the agent, with its full method name. */
  extNotification?(method: string, params: Record<string, unknown>): MaybePromise<void>;
}

/** Which `Client` method handles which wire method. */
export const CLIENT_HANDLER_NAMES: ReadonlyArray<
  readonly [method: string, handler: keyof Client, kind: "request" | "notification"]
> = [
  ["session/request_permission", "requestPermission", "request"],
  ["session/update", "sessionUpdate", "notification"],
  ["fs/write_text_file", "writeTextFile", "request"],
  ["fs/read_text_file", "readTextFile", "request"],
  ["terminal/create", "createTerminal", "request"],
  ["terminal/output", "terminalOutput", "request"],
  ["terminal/release", "releaseTerminal", "request"],
  ["terminal/wait_for_exit", "waitForTerminalExit", "request"],
  ["terminal/kill", "killTerminal", "request"],
  ["elicitation/create", "createElicitation", "request"],
  ["elicitation/complete", "completeElicitation", "notification"],
  ["auth/status_update", "unstable_authStatusUpdate", "notification"],
  ["mcp/message", "unstable_mcpMessage", "request"],
];
