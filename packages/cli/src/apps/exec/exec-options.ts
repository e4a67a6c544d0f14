/**
 * What an `acp exec` run is asked to do, once the command line is read (packages/cli/src/cli/exec-command.ts
 * turns flags into this): the agent, the prompt, the session to use, the permission policy, the output format
 * and the bounds of the run.
 */
import type { McpServer, TapListener } from "@acpkit/sdk";
import type { PermissionPolicy } from "@acpkit/sdk/client-toolkit";
import type { AgentSpec } from "@acpkit/sdk/node";

/** How the turn is written on stdout. */
export type OutputFormat = "text" | "json" | "ndjson";

export interface ExecOptions {
  /** The agent: a command line to launch (`{ argv }`) or a remote agent (`{ url, ... }`). */
  agent: AgentSpec;
  /** The prompt's text. */
  prompt: string;
  /** True when the prompt was read from stdin: the user cannot be asked on the terminal then. */
  promptFromStdin: boolean;
  /** The session's working directory (absolute, existing). */
  cwd: string;
  /** Continue this session (`session/resume`, else `session/load`). */
  session: string | undefined;
  /** Continue the agent's most recent session for `cwd` (`session/list`). */
  resume: boolean;
  /** Log out of the agent and exit instead of running a turn. */
  logout: boolean;
  /** Authenticate with this method before the session. */
  auth: string | undefined;
  /** MCP servers for the session (those the agent cannot take are left out, with a note). */
  mcpServers: McpServer[];
  /** Answers the agent's permission requests and governs the client's own file and terminal hosts. */
  policy: PermissionPolicy;
  /** The policy's name as given to `--permissions` (shown beside each decision; `ask` serves reads). */
  policyName: string;
  /** Sees every message both ways (`--trace`). */
  trace: TapListener | undefined;
  format: OutputFormat;
  /** The agent's stderr, thoughts, plans and permission decisions on stderr. */
  verbose: boolean;
  /** The whole run's bound, in ms (`--timeout`). */
  timeoutMs: number;
  /** The bound of startup and session setup, in ms (at most `timeoutMs`). */
  startupTimeoutMs: number;
  /** This client's version, for `initialize`'s `clientInfo`. */
  version: string;
}

/** Where the run writes: the answer on `out` (stdout), notes on `err` (stderr). */
export interface ExecOutput {
  out(text: string): void;
  err(text: string): void;
}
