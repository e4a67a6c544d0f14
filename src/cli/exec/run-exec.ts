/**
 * `acp exec`: one prompt turn against an ACP agent, headless. Starts the agent (own process group, stderr
 * captured), initializes with a deadline, authenticates if needed, opens or continues a session with the MCP
 * servers, sends the prompt, renders the turn, and exits with a code for how it ended (see exit-codes.ts).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { painterFor } from "../../apps/demo/painter.js";
import { supportedMcpServers } from "../../client/mcp-config.js";
import { SessionRouter, PermissionBroker, type Transcript } from "../../client/toolkit/index.js";
import { ClientSideConnection } from "../../client/client-side-connection.js";
import type { Client } from "../../acp/client-handler.js";
import { launchAgent, initializeWithDeadline, splitCommandLine, FileSystemHost, TerminalHost, type LaunchedAgent } from "../../node/index.js";
import { PROTOCOL_VERSION, type ClientCapabilities, type McpServer } from "../../protocol/index.js";
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
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--cwd ${cwd} is not an existing directory`);
  let prompt = args.prompt ?? "";
  if (prompt === "-") {
    prompt = await readStdin();
    if (prompt.trim() === "") throw new UsageError("the prompt read from stdin (-) is empty");
  }
  let agentArgv: readonly string[] = DEFAULT_AGENT_ARGV;
  if (args.agent !== undefined) {
    try {
      agentArgv = splitCommandLine(args.agent);
    } catch (error) {
      throw new UsageError(`--agent: ${(error as Error).message}`);
    }
  }
  const mcpServers = loadMcpServers(args, cwd);
  const policy = execPolicy(args.permissions, args.prompt === "-");
  const trace = openTraceFlag(args.trace);
  return { args, prompt, cwd, agentArgv, mcpServers, policy, trace };
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
  return new TextRenderer({ out, err, outPaint: painterFor(process.stdout), errPaint: painterFor(process.stderr), verbose: args.verbose, transcript });
}

async function execute(prepared: Prepared, version: string): Promise<number> {
  const { args, cwd, agentArgv } = prepared;
  let transcript: Transcript | undefined;
  let sessionId: string | undefined;
  let turnRunning = false;
  const renderer = makeRenderer(args, () => transcript);
  const continuing = args.session !== undefined || args.resume;
  const result = (exitCode: number, extra: Partial<ExecResult> = {}): number => {
    renderer.finish({ exitCode, sessionId, transcript, ...extra });
    return exitCode;
  };
  const fail = (exitCode: number, message: string): number => {
    renderer.note(`acp exec: ${message}`);
    return result(exitCode, { error: message });
  };

  let launched: LaunchedAgent;
  try {
    launched = await launchAgent({
      argv: agentArgv,
      cwd,
      startupTimeoutMs: args.timeoutMs,
      onStderrLine: args.verbose ? (line) => renderer.stderr(line) : undefined,
    });
  } catch (error) {
    return fail(ExitCode.startup, (error as Error).message);
  }

  const router = new SessionRouter();
  const broker = new PermissionBroker(prepared.policy.policy, { lookupToolCall: (s, id) => router.get(s)?.toolCall(id) });
  const roots = () => [cwd];
  const fsHost = new FileSystemHost({ roots });
  const terminals = new TerminalHost({ roots });
  const client: Client = {
    sessionUpdate(notification) {
      router.route(notification);
      // Updates before the turn are history being replayed only when continuing a session; a new session's are shown.
      if (sessionId === undefined || notification.sessionId === sessionId) renderer.update(notification, !turnRunning && continuing);
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
  const connection = new ClientSideConnection(() => client, launched.stream);
  if (prepared.trace) connection.tap(prepared.trace.listener);

  const interrupts = handleInterrupts({
    cancel() {
      if (!turnRunning || sessionId === undefined) return false;
      transcript?.requestCancel();
      broker.cancelSession(sessionId);
      void connection.cancel({ sessionId }).catch(() => {});
      return true;
    },
    stop: () => void launched.stop(),
    note: (text) => renderer.note(text),
  });
  const interrupted = (message: string) => fail(ExitCode.cancelled, interrupts.stopped ? `stopped (${interrupts.signal ?? "interrupt"}): ${message}` : message);

  try {
    const interactive = Boolean(process.stdin.isTTY) && args.prompt !== "-";
    const clientCapabilities: ClientCapabilities = {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: interactive || args.auth !== undefined },
    };
    let init;
    try {
      init = await initializeWithDeadline(connection, { protocolVersion: PROTOCOL_VERSION, clientCapabilities, clientInfo: { name: "acp-exec", title: "acp exec", version } }, launched);
    } catch (error) {
      if (interrupts.interrupted) return interrupted("the agent was stopped before it started");
      return fail(ExitCode.startup, (error as Error).message);
    }

    if (args.logout) {
      if (!connection.peerSupports("logout")) return fail(ExitCode.auth, "the agent does not support logout (it does not advertise auth.logout)");
      try {
        await connection.logout({});
      } catch (error) {
        return fail(ExitCode.auth, `logout failed: ${(error as Error).message}`);
      }
      renderer.note("acp exec: logged out");
      return result(ExitCode.endTurn);
    }

    const { supported, unsupported } = supportedMcpServers(prepared.mcpServers, init.agentCapabilities);
    for (const server of unsupported) {
      renderer.note(`acp exec: MCP server "${server.name}" left out: the agent does not accept ${"type" in server ? server.type : "stdio"} MCP servers`);
    }

    let setup;
    try {
      setup = await setUpSession({
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
    } catch (error) {
      if (interrupts.interrupted) return interrupted("the agent was stopped during session setup");
      if (error instanceof ExecFailure) return fail(error.exitCode, error.message);
      return fail(ExitCode.startup, `could not set up the session: ${(error as Error).message}`);
    }
    sessionId = setup.sessionId;
    transcript = router.open(sessionId, setup);
    renderer.session({ sessionId, how: setup.how, agent: init.agentInfo ?? null, protocolVersion: init.protocolVersion });

    const prompt = [{ type: "text" as const, text: prepared.prompt }];
    transcript.beginTurn(prompt);
    turnRunning = true;
    try {
      const response = await connection.prompt({ sessionId, prompt });
      transcript.endTurn(response.stopReason);
      if (interrupts.interrupted) return result(ExitCode.cancelled, { stopReason: response.stopReason });
      const code = exitCodeFor(response.stopReason);
      if (code !== ExitCode.endTurn) renderer.note(`acp exec: the turn ended with stop reason "${response.stopReason}"`);
      return result(code, { stopReason: response.stopReason });
    } catch (error) {
      transcript.failTurn(error);
      if (interrupts.interrupted) return interrupted("the turn was cancelled and the agent stopped");
      return fail(ExitCode.agentError, `the agent failed the turn: ${(error as Error).message}`);
    } finally {
      turnRunning = false;
    }
  } finally {
    interrupts.dispose();
    broker.close();
    router.close();
    await terminals.releaseAll();
    connection.close("acp exec finished");
    await launched.stop();
  }
}
