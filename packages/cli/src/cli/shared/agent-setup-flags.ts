/**
 * The agent-setup flags `acp exec` and `acp chat` share, and what they turn into before the agent starts:
 * `--trace FILE`, `--mcp-config FILE`, `--mcp NAME=CMD|URL` (repeatable), `--auth METHOD`, `--permissions POLICY`.
 * Each value is checked when parsed; files are read by `prepareAgentSetup`. Errors are `UsageError`s (exit 2).
 */
import { readFileSync } from "node:fs";
import { parseMcpConfig, parseMcpFlag } from "@acpkit/sdk/client-toolkit";
import { splitCommandLine } from "@acpkit/sdk/node";
import type { McpServer } from "@acpkit/sdk";
import { POLICIES, type PermissionsFlag } from "./permissions.js";
import { resolveCommand } from "./resolve-command.js";
import { openTrace, type TraceWriter } from "./trace.js";
import { UsageError } from "./usage-error.js";

/** The shared flags, as given. */
export interface AgentSetupFlags {
  trace: string | undefined;
  mcpConfig: string | undefined;
  mcp: string[];
  auth: string | undefined;
  /** Undefined: the command's default. */
  permissions: PermissionsFlag | undefined;
}

/** The flags' help lines (for the commands' usage texts). */
export const AGENT_SETUP_USAGE = `  --trace FILE             write every protocol message, both directions, timestamped, as a cassette (NDJSON)
  --mcp-config FILE        MCP servers for the agent, in the editors' {"mcpServers": {...}} JSON shape
  --mcp NAME=CMD|URL       one more MCP server (repeatable): a command line (stdio) or an http(s) URL
  --auth METHOD            authenticate with this method before the session`;

/** Flags with none set. */
export function noAgentSetupFlags(): AgentSetupFlags {
  return { trace: undefined, mcpConfig: undefined, mcp: [], auth: undefined, permissions: undefined };
}

/** What each shared flag wants, for "needs a value" errors. */
export const AGENT_SETUP_HINTS: Readonly<Record<string, string>> = {
  "--permissions": `one of ${POLICIES.join(", ")}, rules:FILE.json`,
  "--trace": "a file to write, e.g. --trace trace.ndjson",
  "--mcp-config": "a JSON file such as .cursor/mcp.json",
  "--mcp": "NAME=COMMAND or NAME=URL",
  "--auth": "an authentication method id the agent lists",
};

/** Sets `flag` to `value` when it is a shared flag; false when it is not one. Throws `UsageError` on a bad value. */
export function setAgentSetupFlag(flags: AgentSetupFlags, flag: string, value: string): boolean {
  if (!(flag in AGENT_SETUP_HINTS)) return false;
  if (value === "" && flag !== "--mcp")
    throw new UsageError(`${flag} needs a non-empty value: ${AGENT_SETUP_HINTS[flag]}`);
  switch (flag) {
    case "--trace":
      flags.trace = value;
      break;
    case "--mcp-config":
      flags.mcpConfig = value;
      break;
    case "--mcp":
      if (!/^[^=]+=.+/.test(value)) throw new UsageError(`--mcp expects NAME=COMMAND or NAME=URL, got "${value}"`);
      flags.mcp.push(value);
      break;
    case "--auth":
      flags.auth = value;
      break;
    case "--permissions":
      flags.permissions = parsePermissionsFlag(value);
      break;
  }
  return true;
}

/** `--permissions` value: a policy name or `rules:FILE`. Throws `UsageError`. */
export function parsePermissionsFlag(value: string): PermissionsFlag {
  if (value.startsWith("rules:")) {
    const rulesFile = value.slice("rules:".length);
    if (rulesFile === "")
      throw new UsageError("--permissions rules: needs a file, e.g. --permissions rules:acp-rules.json");
    return { rulesFile };
  }
  if ((POLICIES as readonly string[]).includes(value)) return value as PermissionsFlag;
  throw new UsageError(`--permissions must be one of ${POLICIES.join(", ")} or rules:FILE.json; got "${value}"`);
}

/**
 * The MCP servers of `--mcp-config` (first, in the file's order) and `--mcp` (in the flags' order). Stdio commands
 * are resolved through PATH and against `cwd`. Throws `UsageError` naming the flag and the offending field.
 */
export function loadMcpServers(flags: Pick<AgentSetupFlags, "mcpConfig" | "mcp">, cwd: string): McpServer[] {
  const servers: McpServer[] = [];
  const resolver = { resolveCommand: (command: string) => resolveCommand(command, cwd) };
  if (flags.mcpConfig !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.mcpConfig, "utf8");
    } catch (error) {
      throw new UsageError(`--mcp-config: cannot read ${flags.mcpConfig}: ${(error as Error).message}`);
    }
    try {
      servers.push(...parseMcpConfig(text, resolver));
    } catch (error) {
      throw new UsageError(`--mcp-config ${flags.mcpConfig}: ${(error as Error).message}`);
    }
  }
  for (const flag of flags.mcp) {
    try {
      servers.push(parseMcpFlag(flag, splitCommandLine, resolver));
    } catch (error) {
      throw new UsageError(`--mcp ${flag}: ${(error as Error).message}`);
    }
  }
  return servers;
}

/**
 * Opens `--trace FILE` (undefined without the flag); `warn` hears about messages that could not be traced as they
 * are (default: stderr). Throws `UsageError` when the file cannot be written.
 */
export function openTraceFlag(path: string | undefined, warn?: (text: string) => void): TraceWriter | undefined {
  if (path === undefined) return undefined;
  try {
    return openTrace(path, warn);
  } catch (error) {
    throw new UsageError(`--trace: cannot write ${path}: ${(error as Error).message}`);
  }
}
