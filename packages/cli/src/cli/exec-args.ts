/**
 * `acp exec` flags: parsed into `ExecArgs`, with errors that name the flag and say what to do. The agent-setup
 * flags it shares with `acp chat` (--trace, --mcp-config, --mcp, --auth, --permissions) live in
 * ./shared/agent-setup-flags.ts.
 */
import {
  AGENT_SETUP_HINTS,
  AGENT_SETUP_USAGE,
  noAgentSetupFlags,
  setAgentSetupFlag,
  type AgentSetupFlags,
} from "./shared/agent-setup-flags.js";
import type { PermissionsFlag } from "./shared/permissions.js";
import {
  checkAgentValue,
  flagValue,
  noRemoteAgentFlags,
  REMOTE_AGENT_HINTS,
  REMOTE_AGENT_USAGE,
  setRemoteAgentFlag,
  type RemoteAgentFlags,
} from "./shared/remote-agent-flags.js";
import type { OutputFormat } from "../apps/exec/exec-options.js";
import { UsageError } from "./shared/usage-error.js";

export { UsageError, type PermissionsFlag };

export const EXEC_USAGE = `Usage: acp exec [options] "<prompt>"     (use - to read the prompt from stdin)

Runs one prompt turn against an ACP agent and exits with a code that says how the turn ended.

Options:
  --agent "<cmd>"|URL      the agent's command line (default: the acpkit reference agent), or the URL of a
                           remote agent: http(s)://HOST/acp or ws(s)://HOST/acp
  --cwd DIR                the session's working directory (default: the current directory)
  --session ID             continue session ID (session/resume, else session/load)
  --resume                 continue the agent's most recent session for --cwd (needs session/list)
  --permissions POLICY     allow-all | deny-all | allow-reads | ask | rules:FILE.json
                           (default: ask on a terminal, else allow-reads); it answers the agent's
                           permission requests AND governs this client's own file reads, writes and
                           terminals: deny-all serves none, allow-reads only reads, ask asks before
                           a write or a command the agent did not ask permission for
  --format FORMAT          text (default) | json (one object at the end) | ndjson (every update as it comes)
  --timeout S              bound of the whole run, in seconds (default 1800): when it runs out the turn is
                           cancelled, the agent gets 2 s to end it, then it is stopped; exit code 124
  --startup-timeout S      seconds the agent has to start and set up the session (default 30, at most --timeout)
${AGENT_SETUP_USAGE}
${REMOTE_AGENT_USAGE}
  --logout                 log out of the agent (when it supports logout) and exit
  --verbose                show the agent's stderr, thoughts, plans and permission decisions on stderr (what
                           acp tap, record and replay report in front of an agent is shown without it)
  -h, --help               print this help

Exit codes: 0 end_turn, 1 agent error (a turn cancelled without being asked included: a remote server shutting
down), 2 usage error, 3 startup failure (including --startup-timeout), 4 authentication needed or failed,
5 refusal, 6 max_tokens, 7 max_turn_requests, 124 --timeout ran out, 130 cancelled (Ctrl-C),
143 SIGTERM, 129 SIGHUP.
`;

export type { OutputFormat };

/** Everything `acp exec` was asked to do. */
export interface ExecArgs extends AgentSetupFlags, RemoteAgentFlags {
  /** The agent's command line; undefined: the default agent. */
  agent: string | undefined;
  cwd: string | undefined;
  session: string | undefined;
  resume: boolean;
  format: OutputFormat;
  /** The whole run's bound (`--timeout`). */
  timeoutMs: number;
  /** The startup bound (`--startup-timeout`); the run's `startupMs` is the smaller of both. */
  startupTimeoutMs: number;
  logout: boolean;
  verbose: boolean;
  help: boolean;
  /** The prompt text, or `-` for stdin; undefined only with --help or --logout. */
  prompt: string | undefined;
}

const VALUE_FLAGS = new Set([
  "--agent",
  "--cwd",
  "--session",
  "--permissions",
  "--format",
  "--trace",
  "--timeout",
  "--startup-timeout",
  "--mcp-config",
  "--mcp",
  "--auth",
  "--token",
  "--token-file",
  "--header",
  "--profile",
]);
const BOOLEAN_FLAGS = new Set(["--resume", "--logout", "--verbose", "--help", "-h"]);
const FORMATS = ["text", "json", "ndjson"] as const;

/** Parses `acp exec`'s arguments (without the `exec`). Throws `UsageError`. */
export function parseExecArgs(argv: readonly string[]): ExecArgs {
  const args: ExecArgs = {
    ...noAgentSetupFlags(),
    ...noRemoteAgentFlags(),
    agent: undefined,
    cwd: undefined,
    session: undefined,
    resume: false,
    format: "text",
    timeoutMs: 1_800_000,
    startupTimeoutMs: 30_000,
    logout: false,
    verbose: false,
    help: false,
    prompt: undefined,
  };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const flag = eq > 0 && arg.startsWith("--") ? arg.slice(0, eq) : arg;
    if (BOOLEAN_FLAGS.has(flag)) {
      if (flag !== arg) throw new UsageError(`${flag} takes no value (got "${arg}")`);
      if (flag === "--resume") args.resume = true;
      else if (flag === "--logout") args.logout = true;
      else if (flag === "--verbose") args.verbose = true;
      else args.help = true;
      continue;
    }
    if (!VALUE_FLAGS.has(flag))
      throw new UsageError(`unknown option ${flag}. Run "acp exec --help" to see the options.`);
    let value: string;
    if (flag !== arg) value = arg.slice(eq + 1);
    else {
      value = flagValue(argv, i + 1, flag, (word) => BOOLEAN_FLAGS.has(word) || VALUE_FLAGS.has(word), hint(flag));
      i++;
    }
    setValue(args, flag, value);
  }
  if (args.help) return args;
  if (args.session !== undefined && args.resume)
    throw new UsageError(
      "--session and --resume exclude each other: give --session ID for one session, or --resume for the latest one",
    );
  if (positional.length > 1)
    throw new UsageError(
      `expected one prompt, got ${positional.length} arguments; quote the prompt: acp exec "${positional.join(" ")}"`,
    );
  args.prompt = positional[0];
  if (args.prompt === undefined && !args.logout)
    throw new UsageError('no prompt given: acp exec "<prompt>", or acp exec - to read it from stdin');
  if (args.prompt !== undefined && args.prompt.trim() === "") throw new UsageError("the prompt is empty");
  return args;
}

function setValue(args: ExecArgs, flag: string, value: string): void {
  if (setAgentSetupFlag(args, flag, value) || setRemoteAgentFlag(args, flag, value)) return;
  if (value === "") throw new UsageError(`${flag} needs a non-empty value: ${hint(flag)}`);
  switch (flag) {
    case "--agent":
      checkAgentValue(value);
      args.agent = value;
      return;
    case "--cwd":
      args.cwd = value;
      return;
    case "--session":
      args.session = value;
      return;
    case "--format":
      if (!(FORMATS as readonly string[]).includes(value))
        throw new UsageError(`--format must be one of ${FORMATS.join(", ")}; got "${value}"`);
      args.format = value as OutputFormat;
      return;
    case "--timeout":
    case "--startup-timeout": {
      const seconds = Number(value);
      if (!Number.isFinite(seconds) || seconds <= 0)
        throw new UsageError(`${flag} takes a positive number of seconds, e.g. ${flag} 10; got "${value}"`);
      if (flag === "--timeout") args.timeoutMs = Math.round(seconds * 1000);
      else args.startupTimeoutMs = Math.round(seconds * 1000);
      return;
    }
  }
}

function hint(flag: string): string {
  const hints: Record<string, string> = {
    "--agent": 'the agent\'s command line, quoted, e.g. --agent "npx my-agent --acp"',
    "--cwd": "a directory, e.g. --cwd .",
    "--session": "a session id the agent gave earlier",
    "--format": FORMATS.join(", "),
    "--timeout": "seconds, e.g. --timeout 600",
    "--startup-timeout": "seconds, e.g. --startup-timeout 60",
    ...AGENT_SETUP_HINTS,
    ...REMOTE_AGENT_HINTS,
  };
  return hints[flag] ?? "see acp exec --help";
}
