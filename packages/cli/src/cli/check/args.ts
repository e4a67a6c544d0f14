/**
 * `acp check agent|client` flags. Shared: --format, --only, --skip, --expected-failures, --timeout,
 * --startup-timeout, --list, --verbose. Agent only: --prompts, --auth, --env. Client only: --stdin, --cancel-signal.
 * Everything after `--` is the command under test (one quoted argument is split like a shell would).
 */
import { splitCommandLine } from "@acpkit/sdk/node";
import { UsageError } from "../shared/usage-error.js";

export type CheckFormat = "table" | "json" | "junit";

export interface CheckArgs {
  kind: "agent" | "client";
  command: string[];
  format: CheckFormat;
  only: string[];
  skip: string[];
  expectedFailures: string | undefined;
  prompts: string | undefined;
  /** Agent checks: the auth method every agent process logs in with. */
  auth: string | undefined;
  /** Agent checks: NAME=VALUE pairs added to the agent's environment. */
  env: Record<string, string>;
  turnTimeoutMs: number;
  startupTimeoutMs: number;
  /** Client checks: text written to the client's stdin (a line each; "\n" starts a new line). */
  stdin: string | undefined;
  /** Client checks: the signal that makes the client cancel a turn. */
  cancelSignal: NodeJS.Signals;
  list: boolean;
  verbose: boolean;
  help: boolean;
}

const VALUE = new Set([
  "--format",
  "--only",
  "--skip",
  "--expected-failures",
  "--prompts",
  "--auth",
  "--env",
  "--timeout",
  "--startup-timeout",
  "--stdin",
  "--cancel-signal",
]);
const AGENT_ONLY = new Set(["--prompts", "--auth", "--env"]);
const CLIENT_ONLY = new Set(["--stdin", "--cancel-signal"]);
const FORMATS: readonly CheckFormat[] = ["table", "json", "junit"];

/** Parses the arguments after `acp check agent|client`. Throws `UsageError`. */
export function parseCheckArgs(kind: "agent" | "client", argv: readonly string[]): CheckArgs {
  const args: CheckArgs = {
    kind,
    command: [],
    format: "table",
    only: [],
    skip: [],
    expectedFailures: undefined,
    prompts: undefined,
    auth: undefined,
    env: {},
    turnTimeoutMs: 30_000,
    startupTimeoutMs: 30_000,
    stdin: undefined,
    cancelSignal: "SIGINT",
    list: false,
    verbose: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      args.command = argv.slice(i + 1);
      break;
    }
    if (arg === "--list") args.list = true;
    else if (arg === "--verbose") args.verbose = true;
    else if (arg === "-h" || arg === "--help") args.help = true;
    else {
      const eq = arg.indexOf("=");
      const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
      if (
        !VALUE.has(flag) ||
        (kind === "agent" && CLIENT_ONLY.has(flag)) ||
        (kind === "client" && AGENT_ONLY.has(flag))
      ) {
        throw new UsageError(
          arg.startsWith("-")
            ? `unknown option ${flag}. Run "acp check ${kind} --help" to see the options.`
            : `unexpected argument "${arg}": put the ${kind}'s command after --, e.g. acp check ${kind} -- ` +
                `${kind === "agent" ? "my-agent --acp" : 'my-client --agent "{agent}"'}`,
        );
      }
      const value = flag !== arg ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      set(args, flag, value);
    }
  }
  if (args.command.length === 1 && /\s/.test(args.command[0]!)) {
    try {
      args.command = splitCommandLine(args.command[0]!);
    } catch (error) {
      throw new UsageError(`the command after --: ${(error as Error).message}`);
    }
  }
  if (args.help || args.list) return args;
  if (args.command.length === 0)
    throw new UsageError(
      `no ${kind} command: acp check ${kind} [options] -- ` +
        `${kind === "agent" ? "<agent command>" : "<client command containing {agent}>"}`,
    );
  if (kind === "client" && !args.command.some((part) => part.includes("{agent}") || part.includes("{agent-argv}"))) {
    throw new UsageError(
      "the client command must contain {agent} where the agent's command line goes, e.g. acp check client -- " +
        'acp exec --agent {agent} "hi"',
    );
  }
  return args;
}

function seconds(flag: string, value: string): number {
  const s = Number(value);
  if (!Number.isFinite(s) || s <= 0)
    throw new UsageError(`${flag} takes a positive number of seconds, e.g. ${flag} 20; got "${value}"`);
  return Math.round(s * 1000);
}

function set(args: CheckArgs, flag: string, value: string): void {
  switch (flag) {
    case "--format":
      if (!(FORMATS as readonly string[]).includes(value))
        throw new UsageError(`--format must be one of ${FORMATS.join(", ")}; got "${value}"`);
      args.format = value as CheckFormat;
      return;
    case "--only":
    case "--skip":
      (flag === "--only" ? args.only : args.skip).push(
        ...value
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      );
      return;
    case "--expected-failures":
      args.expectedFailures = value;
      return;
    case "--prompts":
      args.prompts = value;
      return;
    case "--auth":
      if (value === "") throw new UsageError("--auth needs the id of one of the agent's authMethods");
      args.auth = value;
      return;
    case "--env": {
      const eq = value.indexOf("=");
      if (eq <= 0)
        throw new UsageError(
          `--env takes NAME=VALUE (added to the agent's environment), e.g. --env API_KEY=...; got "${value}"`,
        );
      args.env[value.slice(0, eq)] = value.slice(eq + 1);
      return;
    }
    case "--timeout":
      args.turnTimeoutMs = seconds(flag, value);
      return;
    case "--startup-timeout":
      args.startupTimeoutMs = seconds(flag, value);
      return;
    case "--stdin":
      args.stdin = value;
      return;
    case "--cancel-signal":
      if (!/^SIG[A-Z0-9]+$/.test(value))
        throw new UsageError(`--cancel-signal takes a signal name such as SIGINT; got "${value}"`);
      args.cancelSignal = value as NodeJS.Signals;
      return;
  }
}
