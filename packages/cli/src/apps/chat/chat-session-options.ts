import type * as schema from "@acpkit/sdk";
import type { TapListener } from "@acpkit/sdk";
import type { AskAnswer, PermissionPolicy, Transcript } from "@acpkit/sdk/client-toolkit";
import type { AgentSpec } from "@acpkit/sdk/node";

/** Options of `ChatSession.start`. */
export interface ChatSessionOptions {
  /** The agent's program and arguments. */
  argv: readonly string[];
  /** A remote agent to connect to instead of launching `argv`. */
  remote?: Extract<AgentSpec, { url: string }>;
  /** The session's working directory (absolute). */
  cwd: string;
  /** Asks the user about a permission request; `signal` aborts when the answer is no longer wanted. */
  ask: (request: schema.RequestPermissionRequest, signal: AbortSignal) => Promise<AskAnswer>;
  /** The permission policy (default: ask every time through `ask`, remembering "always" answers). */
  policy?: PermissionPolicy;
  /**
   * The policy's name ("ask" when absent). The policy also governs the chat's own file and terminal hosts
   * (`brokerGate`): with "ask", reads inside the roots are served and writes and commands are asked unless a
   * permission the agent just obtained covers them; with any other policy, every access is put to it.
   */
  policyName?: string;
  /** MCP servers for every `session/new`, `load` and `resume` (those the agent cannot take are left out). */
  mcpServers?: readonly schema.McpServer[];
  /** Sees every message in both directions, from before `initialize` (e.g. `--trace`). */
  tap?: TapListener;
  /** Progress lines for the user (authentication, MCP servers left out). */
  onNote?: (text: string) => void;
  /** A transcript became the current one (a new, loaded or resumed session). */
  onSession?: (transcript: Transcript) => void;
  /** A terminal's output or exit changed. */
  onTerminal?: (terminalId: string) => void;
  /** A line the agent printed on stderr. */
  onStderrLine?: (line: string) => void;
  /** Deadline for `initialize`, and for each `session/new`, `load` or `resume`. Default 30000. */
  startupTimeoutMs?: number;
  /** How long the agent has to end a turn after a cancel before the turn ends here (see `TurnGuard`). Default 5000. */
  cancelDeadlineMs?: number;
  /** The agent broke a prompt-turn rule (a `TurnGuard` violation, or an unexpected protocol version). */
  onWarning?: (text: string) => void;
  /** The agent ignored a cancel: the turn ends here; stop or `restart` it (the chat UI restarts it). */
  onCancelIgnored?: () => void;
}
