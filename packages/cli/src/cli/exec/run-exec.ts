/**
 * `acp exec`: one prompt turn against an ACP agent, headless. Starts the agent (own process group, stderr
 * captured), initializes with a deadline, authenticates if needed, opens or continues a session with the MCP
 * servers, sends the prompt, renders the turn, and exits with a code for how it ended (see exit-codes.ts).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { painterFor } from "../../apps/demo/painter.js";
import { supportedMcpServers } from "@acpkit/sdk/client-toolkit";
import { SessionRouter, PermissionBroker, TurnGuard, brokerGate, type Transcript } from "@acpkit/sdk/client-toolkit";
import { droppedUpdates } from "./exec-logger.js";
import { ToolLines } from "./tool-lines.js";
import { ClientSideConnection } from "@acpkit/sdk";
import type { Client } from "@acpkit/sdk";
import {
  AgentStartupTimeoutError,
  initializeWithDeadline,
  splitCommandLine,
  FileSystemHost,
  TerminalHost,
} from "@acpkit/sdk/node";
import { openAgentEndpoint, type AgentEndpoint, type AgentSpec } from "@acpkit/sdk/node";
import { remoteAgentSpec, withTokenHint } from "../shared/remote-agent-flags.js";
import { PROTOCOL_VERSION, type ClientCapabilities, type McpServer } from "@acpkit/sdk";
import { EXEC_USAGE, parseExecArgs, UsageError, type ExecArgs } from "./args.js";
import { DEFAULT_AGENT_ARGV } from "./default-agent.js";
import { ExitCode, exitCodeFor } from "./exit-codes.js";
import { execPolicy } from "./permissions.js";
import { loadMcpServers, openTraceFlag } from "../shared/agent-setup-flags.js";
import type { NamedPolicy } from "../shared/permissions.js";
import { JsonRenderer, NdjsonRenderer } from "./render-json.js";
import { TextRenderer } from "./render-text.js";
import type { ExecRenderer, ExecResult } from "./renderer.js";
import { ExecFailure, setUpSession } from "./session-setup.js";
import { handleInterrupts } from "./signals.js";
import type { TraceWriter } from "../shared/trace.js";
import { checkProtocolVersion } from "@acpkit/sdk/client-toolkit";
import { BoundExceededError, RunClock, seconds, UnansweredRequests } from "./run-clock.js";
import { agentErrorText, CANCEL_GRACE_MS, runTurn } from "./run-turn.js";

/** Stdout went away (`acp exec ... | head`): later output is dropped, the run goes on. */
let stdoutGone = false;
const out = (text: string) => void (stdoutGone || process.stdout.write(text));
const err = (text: string) => void process.stderr.write(text);

/** What `runExec` needs before it starts the agent. */
interface Prepared {
  args: ExecArgs;
  prompt: string;
  cwd: string;
  agentArgv: readonly string[];
  /** A remote agent (`--agent URL`), else undefined: `agentArgv` is launched. */
  remote: Extract<AgentSpec, { url: string }> | undefined;
  mcpServers: McpServer[];
  policy: NamedPolicy;
  trace: TraceWriter | undefined;
}

/** Runs `acp exec` with its arguments (after `exec`); resolves with the exit code. Never rejects. */
export async function runExec(argv: readonly string[], version: string): Promise<number> {
  process.stdout.on("error", () => {
    stdoutGone = true;
  });
  let prepared: Prepared;
  try {
    const args = parseExecArgs(argv);
    if (args.help) {
      out(EXEC_USAGE);
      return 0;
    }
    prepared = await prepare(args);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`acp exec: ${error.message}\n`);
      return ExitCode.usage;
    }
    throw error;
  }
  try {
    return await execute(prepared, version);
  } finally {
    prepared.trace?.close();
  }
}

async function prepare(args: ExecArgs): Promise<Prepared> {
  const cwd = resolve(args.cwd ?? process.cwd());
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--cwd ${cwd} is not an existing directory`);
  let prompt = args.prompt ?? "";
  if (prompt === "-") {
    prompt = await readStdin();
    if (prompt.trim() === "") throw new UsageError("the prompt read from stdin (-) is empty");
  }
  let agentArgv: readonly string[] = DEFAULT_AGENT_ARGV;
  const remote = remoteAgentSpec(args.agent, args);
  if (args.agent !== undefined && remote === undefined) {
    try {
      agentArgv = splitCommandLine(args.agent);
    } catch (error) {
      throw new UsageError(`--agent: ${(error as Error).message}`);
    }
  }
  const mcpServers = loadMcpServers(args, cwd);
  const policy = execPolicy(args.permissions, args.prompt === "-");
  const trace = openTraceFlag(args.trace);
  return { args, prompt, cwd, agentArgv: remote ? [] : agentArgv, remote, mcpServers, policy, trace };
}

function readStdin(): Promise<string> {
  return new Promise((resolveText, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.once("end", () => resolveText(Buffer.concat(chunks).toString("utf8")));
    process.stdin.once("error", reject);
  });
}

function makeRenderer(args: ExecArgs, transcript: () => Transcript | undefined): ExecRenderer {
  if (args.format === "json") return new JsonRenderer(out, (text) => err(`${text}\n`));
  if (args.format === "ndjson") return new NdjsonRenderer(out, (text) => err(`${text}\n`));
  return new TextRenderer({
    out,
    err,
    outPaint: painterFor(process.stdout),
    errPaint: painterFor(process.stderr),
    verbose: args.verbose,
    transcript,
  });
}

async function execute(prepared: Prepared, version: string): Promise<number> {
  const { args, cwd, agentArgv } = prepared;
  const clock = new RunClock(args.timeoutMs, Math.min(args.startupTimeoutMs, args.timeoutMs));
  let transcript: Transcript | undefined;
  let sessionId: string | undefined;
  const warnings: string[] = [];
  const renderer = makeRenderer(args, () => transcript);
  const continuing = args.session !== undefined || args.resume;
  const result = (exitCode: number, extra: Partial<ExecResult> = {}): number => {
    renderer.finish({ exitCode, sessionId, transcript, ...(warnings.length > 0 ? { warnings } : {}), ...extra });
    return exitCode;
  };
  const fail = (exitCode: number, problem: string): number => {
    const message = withTokenHint(problem);
    renderer.note(`acp exec: ${message}`);
    return result(exitCode, { error: message });
  };
  const warn = (message: string) => {
    warnings.push(message);
    renderer.note(`acp exec: warning: ${message}`);
  };

  const toolLines = new ToolLines();
  let launched: AgentEndpoint;
  try {
    launched = await openAgentEndpoint(prepared.remote ?? { argv: agentArgv }, {
      cwd,
      startupTimeoutMs: clock.startupMs,
      // The agent's log with --verbose; what acpkit's tools in front of it report (acp tap, record, replay) always.
      onStderrLine: (line) => {
        if (toolLines.shows(line)) renderer.note(line);
        else if (args.verbose) renderer.stderr(line);
      },
    });
  } catch (error) {
    clock.dispose();
    return fail(ExitCode.startup, (error as Error).message);
  }

  const router = new SessionRouter();
  const broker = new PermissionBroker(prepared.policy.policy, {
    lookupToolCall: (s, id) => router.get(s)?.toolCall(id),
  });
  // The hosts serve only the session this run set up, under the same --permissions policy (see brokerGate).
  const roots = (id: string) => (id === sessionId ? [cwd] : undefined);
  const gate = brokerGate(broker, {
    policyName: prepared.policy.name,
    reads: prepared.policy.name === "ask" ? "serve" : "policy",
  });
  const fsHost = new FileSystemHost({ roots, gate });
  const terminals = new TerminalHost({ roots, gate });
  // The guard reaches the connection lazily: it exists before the connection whose handlers use it.
  const turnGuard = new TurnGuard(
    { prompt: (params, options) => connection.prompt(params, options), cancel: (params) => connection.cancel(params) },
    {
      cancelDeadlineMs: CANCEL_GRACE_MS,
      onViolation: (violation) => warn(violation.message),
      onCancelIgnored: () => {
        renderer.note(
          `acp exec: the agent did not end the turn within ${CANCEL_GRACE_MS} ms of the cancel; stopping it`,
        );
        void launched.stop();
      },
    },
  );
  const client: Client = {
    sessionUpdate(notification) {
      const placement = turnGuard.observe(notification);
      router.route(notification);
      // Updates before the turn are history being replayed only when continuing a session; a new session's are shown.
      const where = placement.turn === undefined ? (continuing ? "before" : "turn") : placement.late ? "late" : "turn";
      if (sessionId === undefined || notification.sessionId === sessionId) renderer.update(notification, where);
    },
    async requestPermission(request) {
      const response = await broker.request(request);
      renderer.permission(request, response, prepared.policy.name);
      return response;
    },
    readTextFile: (params) => fsHost.readTextFile(params),
    writeTextFile: (params) => fsHost.writeTextFile(params),
    createTerminal: (params) => terminals.createTerminal(params),
    terminalOutput: (params) => terminals.terminalOutput(params),
    waitForTerminalExit: (params) => terminals.waitForTerminalExit(params),
    killTerminal: (params) => terminals.killTerminal(params),
    releaseTerminal: (params) => terminals.releaseTerminal(params),
  };
  // exec chooses what reaches stderr itself (its messages, the agent's stderr tail, --trace): of the library's lines,
  // only what the agent sent that could not be shown (a session/update failing the schema is not dropped silently).
  const connection = new ClientSideConnection(() => client, launched.stream, { logger: droppedUpdates(warn) });
  const unanswered = new UnansweredRequests();
  connection.tap(unanswered.listener);
  if (prepared.trace) connection.tap(prepared.trace.listener);

  /** Cancels the running turn (the guard stops the agent if it does not end it in time); false when none runs. */
  const cancelTurn = (): boolean => {
    if (sessionId === undefined || !turnGuard.isRunning(sessionId)) return false;
    transcript?.requestCancel();
    broker.cancelSession(sessionId);
    return turnGuard.cancel(sessionId);
  };
  const interrupts = handleInterrupts({
    cancel: cancelTurn,
    stop: () => void launched.stop(),
    note: (text) => renderer.note(text),
  });
  const interrupted = (message: string) =>
    fail(
      ExitCode.cancelled,
      interrupts.stopped ? `stopped (${interrupts.signal ?? "interrupt"}): ${message}` : message,
    );
  let timedOut = false;
  /** What the agent had left unanswered when the run's bound ran out. */
  let waitingOn = "";
  const agentStderr = () => describeStderr(launched.stderrTail());

  /** Stops the agent while still reading it (updates it sends after its answer are rendered), then closes. */
  let settling: Promise<void> | undefined;
  const settle = () =>
    (settling ??= (async () => {
      interrupts.dispose();
      clock.dispose();
      broker.close();
      await terminals.releaseAll();
      await launched.stop();
      turnGuard.close();
      router.close();
      connection.close("acp exec finished");
    })());

  try {
    const interactive = Boolean(process.stdin.isTTY) && args.prompt !== "-";
    const clientCapabilities: ClientCapabilities = {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: interactive || args.auth !== undefined },
    };
    let init;
    try {
      init = await initializeWithDeadline(
        connection,
        {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities,
          clientInfo: { name: "acp-exec", title: "acp exec", version },
        },
        launched,
        { timeoutMs: clock.startupMs },
      );
    } catch (error) {
      if (interrupts.interrupted) return interrupted("the agent was stopped before it started");
      const message = (error as Error).message;
      return fail(
        ExitCode.startup,
        error instanceof AgentStartupTimeoutError
          ? message.replace("raise startupTimeoutMs", "raise --startup-timeout")
          : message,
      );
    }
    const verdict = checkProtocolVersion(PROTOCOL_VERSION, init.protocolVersion);
    if (!verdict.ok) return fail(ExitCode.startup, verdict.message);
    if (verdict.warning !== undefined) warn(verdict.warning);

    if (args.logout) {
      if (!connection.peerSupports("logout"))
        return fail(ExitCode.auth, "the agent does not support logout (it does not advertise auth.logout)");
      try {
        await clock.withinStartup(
          connection.logout({}),
          () => `the agent did not answer logout within ${seconds(clock.startupMs)}; ${agentStderr()}`,
        );
      } catch (error) {
        return fail(ExitCode.auth, `logout failed: ${(error as Error).message}`);
      }
      renderer.note("acp exec: logged out");
      return result(ExitCode.endTurn);
    }

    const { supported, unsupported } = supportedMcpServers(prepared.mcpServers, init.agentCapabilities);
    for (const server of unsupported) {
      renderer.note(
        `acp exec: MCP server "${server.name}" left out: the agent does not accept ${"type" in server ? server.type : "stdio"} MCP servers`,
      );
    }

    let setup;
    try {
      const setting = setUpSession({
        connection,
        init,
        clientCapabilities,
        agentArgv,
        cwd,
        mcpServers: supported,
        session: args.session,
        resume: args.resume,
        auth: args.auth,
        interactive: interactive || args.auth !== undefined,
        note: (text) => renderer.note(text),
      });
      setup = await clock.withinStartup(
        setting,
        () =>
          `the agent did not set up the session within ${seconds(clock.startupMs)} of its start (no answer to ${unanswered.describe() || "the session requests"}); ` +
          `${agentStderr()}. Check the agent's logs (--verbose shows its stderr), or raise --startup-timeout if it is just slow`,
      );
    } catch (error) {
      if (interrupts.interrupted) return interrupted("the agent was stopped during session setup");
      if (error instanceof ExecFailure) return fail(error.exitCode, error.message);
      if (error instanceof BoundExceededError) return fail(ExitCode.startup, error.message);
      return fail(ExitCode.startup, `could not set up the session: ${agentErrorText(error)}`);
    }
    sessionId = setup.sessionId;
    transcript = router.open(sessionId, setup);
    renderer.session({
      sessionId,
      how: setup.how,
      agent: init.agentInfo ?? null,
      protocolVersion: init.protocolVersion,
    });

    // Startup is under the startup bound (never longer than the whole run's); from here on, the whole run's.
    clock.onTotal(() => {
      timedOut = true;
      waitingOn = unanswered.describe();
      renderer.note(
        `acp exec: the run reached --timeout ${seconds(clock.totalMs)}; ${cancelTurn() ? "cancelling the turn" : "stopping the agent"}`,
      );
      if (sessionId === undefined || !turnGuard.isRunning(sessionId)) void launched.stop();
    });
    const outcome = await runTurn({ guard: turnGuard, transcript, sessionId, text: prepared.prompt });
    await settle();
    if (timedOut) {
      const stopped = outcome.endedLocally || outcome.error !== undefined;
      const message =
        `timed out: the run reached --timeout ${seconds(clock.totalMs)}${waitingOn === "" ? "" : ` (no answer to ${waitingOn})`}; the turn was cancelled` +
        `${stopped ? ` and the agent, which did not end it within ${CANCEL_GRACE_MS} ms, was stopped` : ""}. ` +
        "Raise --timeout if the agent needs longer; --verbose shows its stderr";
      renderer.note(`acp exec: ${message}`);
      return result(ExitCode.timedOut, {
        error: message,
        ...(outcome.response ? { stopReason: outcome.response.stopReason } : {}),
      });
    }
    if (outcome.error !== undefined) {
      if (interrupts.interrupted) return interrupted("the turn was cancelled and the agent stopped");
      return fail(ExitCode.agentError, `the agent failed the turn: ${agentErrorText(outcome.error)}`);
    }
    const stopReason = outcome.response!.stopReason;
    if (interrupts.interrupted) {
      return outcome.endedLocally
        ? interrupted("the turn was cancelled and the agent stopped")
        : result(ExitCode.cancelled, { stopReason });
    }
    if (stopReason === "cancelled") {
      // Nobody here asked for it (no Ctrl-C, no --timeout): not the user's cancel, so not exit 130.
      const message =
        "the agent ended the turn as cancelled, which this run did not ask for" +
        (prepared.remote === undefined
          ? ""
          : " (a remote server cancels its running turns when it shuts down: is it still up?)");
      renderer.note(`acp exec: ${message}`);
      return result(ExitCode.agentError, { stopReason, error: message });
    }
    const code = exitCodeFor(stopReason);
    if (code !== ExitCode.endTurn) renderer.note(`acp exec: the turn ended with stop reason "${stopReason}"`);
    return result(code, { stopReason });
  } finally {
    await settle();
  }
}

/** The agent's last stderr lines, for messages. */
function describeStderr(lines: readonly string[]): string {
  return lines.length === 0
    ? "it printed nothing on stderr"
    : `it printed:\n${lines.map((line) => `  | ${line}`).join("\n")}\n`;
}
