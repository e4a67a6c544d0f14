/**
 * `acp exec`: reads the flags (exec-args.ts), turns them into the run's options (the prompt, read from stdin for
 * `-`; the agent; MCP servers; the permission policy; the trace file), and runs the exec app
 * (packages/cli/src/apps/exec). A usage error is printed with exit code 2 before anything starts.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { splitCommandLine } from "@acpkit/sdk/node";
import { askOnTerminalPolicy, canAsk } from "../apps/exec/ask-on-terminal.js";
import type { ExecOptions, ExecOutput } from "../apps/exec/exec-options.js";
import { runExec } from "../apps/exec/exec-run.js";
import { ExitCode } from "../apps/exec/exit-codes.js";
import { EXEC_USAGE, parseExecArgs, UsageError, type ExecArgs } from "./exec-args.js";
import { loadMcpServers, openTraceFlag } from "./shared/agent-setup-flags.js";
import { DEFAULT_AGENT_ARGV } from "./shared/default-agent.js";
import { buildPolicy } from "./shared/permissions.js";
import { remoteAgentSpec } from "./shared/remote-agent-flags.js";
import type { TraceWriter } from "./shared/trace.js";

/** Stdout went away (`acp exec ... | head`): later output is dropped, the run goes on. */
let stdoutGone = false;
const output: ExecOutput = {
  out: (text) => void (stdoutGone || process.stdout.write(text)),
  err: (text) => void process.stderr.write(text),
};

/** Runs `acp exec` with its arguments (after `exec`); resolves with the exit code. */
export async function execCommand(argv: readonly string[], version: string): Promise<number> {
  process.stdout.on("error", () => {
    stdoutGone = true;
  });
  let options: ExecOptions;
  let trace: TraceWriter | undefined;
  try {
    const args = parseExecArgs(argv);
    if (args.help) {
      output.out(EXEC_USAGE);
      return 0;
    }
    ({ options, trace } = await execOptions(args, version));
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`acp exec: ${error.message}\n`);
      return ExitCode.usage;
    }
    throw error;
  }
  try {
    return await runExec(options, output);
  } finally {
    trace?.close();
  }
}

/**
 * The run's options from the flags, and the trace file (opened last, once every flag was accepted). Throws
 * `UsageError`.
 */
async function execOptions(
  args: ExecArgs,
  version: string,
): Promise<{ options: ExecOptions; trace: TraceWriter | undefined }> {
  const cwd = resolve(args.cwd ?? process.cwd());
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--cwd ${cwd} is not an existing directory`);
  const promptFromStdin = args.prompt === "-";
  let prompt = args.prompt ?? "";
  if (promptFromStdin) {
    prompt = await readStdin();
    if (prompt.trim() === "") throw new UsageError("the prompt read from stdin (-) is empty");
  }
  const remote = remoteAgentSpec(args.agent, args, process.env, (text) => process.stderr.write(`acp exec: ${text}\n`));
  let argv: readonly string[] = DEFAULT_AGENT_ARGV;
  if (args.agent !== undefined && remote === undefined) {
    try {
      argv = splitCommandLine(args.agent);
    } catch (error) {
      throw new UsageError(`--agent: ${(error as Error).message}`);
    }
  }
  const mcpServers = loadMcpServers(args, cwd);
  const ask = canAsk() && !promptFromStdin ? askOnTerminalPolicy : undefined;
  const { name, policy } = buildPolicy(args.permissions, {
    ask,
    cannotAsk: "needs an interactive terminal (and a prompt not read from stdin)",
  });
  const trace = openTraceFlag(args.trace);
  const options: ExecOptions = {
    agent: remote ?? { argv },
    prompt,
    promptFromStdin,
    cwd,
    session: args.session,
    resume: args.resume,
    logout: args.logout,
    auth: args.auth,
    mcpServers,
    policy,
    policyName: name,
    trace: trace?.listener,
    format: args.format,
    verbose: args.verbose,
    timeoutMs: args.timeoutMs,
    startupTimeoutMs: args.startupTimeoutMs,
    version,
  };
  return { options, trace };
}

function readStdin(): Promise<string> {
  return new Promise((resolveText, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.once("end", () => resolveText(Buffer.concat(chunks).toString("utf8")));
    process.stdin.once("error", reject);
  });
}
