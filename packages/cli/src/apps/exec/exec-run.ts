/**
 * `acp exec`: one prompt turn against an ACP agent, headless, in named phases: start the agent (own process group,
 * stderr captured), connect, initialize with a deadline, log out (`--logout`) or set up the session (authenticating
 * if needed, with the MCP servers it accepts), run the turn, settle; the exit code says how it ended (see
 * exit-codes.ts). Startup and session setup are under the startup bound; everything is under the whole run's.
 */
import { PROTOCOL_VERSION, type ClientCapabilities, type InitializeResponse, type McpServer } from "@acpkit/sdk";
import { checkProtocolVersion, supportedMcpServers, type Transcript } from "@acpkit/sdk/client-toolkit";
import {
  AgentStartupTimeoutError,
  initializeWithDeadline,
  openAgentEndpoint,
  type AgentEndpoint,
} from "@acpkit/sdk/node";
import { painterFor } from "../shared/painter.js";
import { withTokenHint } from "../shared/token-hint.js";
import { ExecClient } from "./exec-client.js";
import type { ExecOptions, ExecOutput } from "./exec-options.js";
import { ExitCode, exitCodeFor, exitCodeForSignal } from "./exit-codes.js";
import { JsonRenderer, NdjsonRenderer } from "./render-json.js";
import { TextRenderer } from "./render-text.js";
import type { ExecRenderer, ExecResult } from "./renderer.js";
import { BoundExceededError, RunClock, seconds } from "./run-clock.js";
import { agentErrorText, CANCEL_GRACE_MS, runTurn } from "./run-turn.js";
import { ExecFailure, setUpSession, type SetupResult } from "./session-setup.js";
import { handleInterrupts, type InterruptHandler } from "./signals.js";
import { ToolLines } from "./tool-lines.js";

/** Runs the turn `options` describe; resolves with the exit code. Rejects only on a bug. */
export function runExec(options: ExecOptions, output: ExecOutput): Promise<number> {
  return new ExecRun(options, output).run();
}

/** One run, phase by phase. A phase that ends the run throws an `ExecFailure` with its exit code. */
class ExecRun {
  readonly #options: ExecOptions;
  readonly #clock: RunClock;
  readonly #renderer: ExecRenderer;
  readonly #warnings: string[] = [];
  /** Whether the user can be asked (terminal authentication). */
  readonly #interactive: boolean;
  readonly #capabilities: ClientCapabilities;
  #sessionId: string | undefined;
  #transcript: Transcript | undefined;
  #agent!: AgentEndpoint;
  #client!: ExecClient;
  #interrupts!: InterruptHandler;
  #settling: Promise<void> | undefined;

  constructor(options: ExecOptions, output: ExecOutput) {
    this.#options = options;
    this.#clock = new RunClock(options.timeoutMs, Math.min(options.startupTimeoutMs, options.timeoutMs));
    this.#renderer = makeRenderer(options, output, () => this.#transcript);
    this.#interactive = Boolean(process.stdin.isTTY) && !options.promptFromStdin;
    this.#capabilities = {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: this.#interactive || options.auth !== undefined },
    };
  }

  async run(): Promise<number> {
    try {
      await this.#startAgent();
    } catch (error) {
      this.#clock.dispose();
      return this.#fail(ExitCode.startup, (error as Error).message);
    }
    this.#connect();
    try {
      const init = await this.#initialize();
      if (this.#options.logout) return await this.#logout();
      await this.#setUpSession(init);
      return await this.#promptTurn();
    } catch (error) {
      if (error instanceof ExecFailure) return this.#fail(error.exitCode, error.message);
      throw error;
    } finally {
      await this.#settle();
    }
  }

  // ---- Phases ------------------------------------------------------------------------------------------------

  /** Launches the agent, or connects to it (a URL), under the startup bound. */
  async #startAgent(): Promise<void> {
    const { agent, cwd, verbose } = this.#options;
    const toolLines = new ToolLines();
    this.#agent = await openAgentEndpoint(agent, {
      cwd,
      startupTimeoutMs: this.#clock.startupMs,
      // The agent's log with --verbose; what acpkit's tools in front of it report (acp tap, record, replay) always.
      onStderrLine: (line) => {
        if (toolLines.shows(line)) this.#renderer.note(line);
        else if (verbose) this.#renderer.stderr(line);
      },
    });
  }

  /** The client's connection, and what Ctrl-C, SIGTERM and SIGHUP do from now on. */
  #connect(): void {
    this.#client = new ExecClient({
      stream: this.#agent.stream,
      options: this.#options,
      renderer: this.#renderer,
      sessionId: () => this.#sessionId,
      warn: (message) => this.#warn(message),
      stopAgent: () => void this.#agent.stop(),
    });
    this.#interrupts = handleInterrupts({
      cancel: () => this.#client.cancelTurn(),
      stop: () => void this.#agent.stop(),
      note: (text) => this.#renderer.note(text),
    });
  }

  /** `initialize`, under the startup bound; the protocol version the agent chose must be one we speak. */
  async #initialize(): Promise<InitializeResponse> {
    let init: InitializeResponse;
    try {
      init = await initializeWithDeadline(
        this.#client.connection,
        {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: this.#capabilities,
          clientInfo: { name: "acp-exec", title: "acp exec", version: this.#options.version },
        },
        this.#agent,
        { timeoutMs: this.#clock.startupMs },
      );
    } catch (error) {
      if (this.#interrupts.interrupted) throw this.#interrupted("the agent was stopped before it started");
      const message = (error as Error).message;
      throw new ExecFailure(
        ExitCode.startup,
        error instanceof AgentStartupTimeoutError
          ? message.replace("raise startupTimeoutMs", "raise --startup-timeout")
          : message,
      );
    }
    const verdict = checkProtocolVersion(PROTOCOL_VERSION, init.protocolVersion);
    if (!verdict.ok) throw new ExecFailure(ExitCode.startup, verdict.message);
    if (verdict.warning !== undefined) this.#warn(verdict.warning);
    return init;
  }

  /** `--logout`: logs out of an agent that supports it, under the startup bound. */
  async #logout(): Promise<number> {
    const { connection } = this.#client;
    if (!connection.peerSupports("logout"))
      throw new ExecFailure(ExitCode.auth, "the agent does not support logout (it does not advertise auth.logout)");
    try {
      await this.#clock.withinStartup(
        connection.logout({}),
        () => `the agent did not answer logout within ${seconds(this.#clock.startupMs)}; ${this.#agentStderr()}`,
      );
    } catch (error) {
      throw new ExecFailure(ExitCode.auth, `logout failed: ${(error as Error).message}`);
    }
    this.#renderer.note("acp exec: logged out");
    return this.#result(ExitCode.endTurn);
  }

  /** A new session, or the one to continue, with the MCP servers the agent accepts, under the startup bound. */
  async #setUpSession(init: InitializeResponse): Promise<void> {
    const mcpServers = this.#acceptedMcpServers(init);
    let setup: SetupResult;
    try {
      const setting = setUpSession({
        connection: this.#client.connection,
        init,
        clientCapabilities: this.#capabilities,
        agentArgv: "argv" in this.#options.agent ? this.#options.agent.argv : [],
        cwd: this.#options.cwd,
        mcpServers,
        session: this.#options.session,
        resume: this.#options.resume,
        auth: this.#options.auth,
        interactive: this.#interactive || this.#options.auth !== undefined,
        note: (text) => this.#renderer.note(text),
      });
      setup = await this.#clock.withinStartup(
        setting,
        () =>
          `the agent did not set up the session within ${seconds(this.#clock.startupMs)} of its start ` +
          `(no answer to ${this.#client.unanswered.describe() || "the session requests"}); ${this.#agentStderr()}. ` +
          "Check the agent's logs (--verbose shows its stderr), or raise --startup-timeout if it is just slow",
      );
    } catch (error) {
      if (this.#interrupts.interrupted) throw this.#interrupted("the agent was stopped during session setup");
      if (error instanceof ExecFailure) throw error;
      if (error instanceof BoundExceededError) throw new ExecFailure(ExitCode.startup, error.message);
      throw new ExecFailure(ExitCode.startup, `could not set up the session: ${agentErrorText(error)}`);
    }
    this.#sessionId = setup.sessionId;
    this.#transcript = this.#client.router.open(setup.sessionId, setup);
    this.#renderer.session({
      sessionId: setup.sessionId,
      how: setup.how,
      agent: init.agentInfo ?? null,
      protocolVersion: init.protocolVersion,
    });
  }

  /** The MCP servers of the options the agent can take; the others are left out with a note. */
  #acceptedMcpServers(init: InitializeResponse): McpServer[] {
    const { supported, unsupported } = supportedMcpServers(this.#options.mcpServers, init.agentCapabilities);
    for (const server of unsupported) {
      const type = "type" in server ? server.type : "stdio";
      this.#renderer.note(
        `acp exec: MCP server "${server.name}" left out: the agent does not accept ${type} MCP servers`,
      );
    }
    return supported;
  }

  /** The prompt turn, under the whole run's bound (when it runs out the turn is cancelled), then its exit code. */
  async #promptTurn(): Promise<number> {
    const sessionId = this.#sessionId!;
    let timedOut = false;
    /** What the agent had left unanswered when the run's bound ran out. */
    let waitingOn = "";
    this.#clock.onTotal(() => {
      timedOut = true;
      waitingOn = this.#client.unanswered.describe();
      const cancelling = this.#client.cancelTurn();
      this.#renderer.note(
        `acp exec: the run reached --timeout ${seconds(this.#clock.totalMs)}; ` +
          `${cancelling ? "cancelling the turn" : "stopping the agent"}`,
      );
      if (!this.#client.turnRunning) void this.#agent.stop();
    });
    const outcome = await runTurn({
      guard: this.#client.guard,
      transcript: this.#transcript!,
      sessionId,
      text: this.#options.prompt,
    });
    await this.#settle();
    if (timedOut) {
      const stopped = outcome.endedLocally || outcome.error !== undefined;
      const message =
        `timed out: the run reached --timeout ${seconds(this.#clock.totalMs)}` +
        `${waitingOn === "" ? "" : ` (no answer to ${waitingOn})`}; the turn was cancelled` +
        `${stopped ? ` and the agent, which did not end it within ${CANCEL_GRACE_MS} ms, was stopped` : ""}. ` +
        "Raise --timeout if the agent needs longer; --verbose shows its stderr";
      this.#renderer.note(`acp exec: ${message}`);
      return this.#result(ExitCode.timedOut, {
        error: message,
        ...(outcome.response ? { stopReason: outcome.response.stopReason } : {}),
      });
    }
    if (outcome.error !== undefined) {
      if (this.#interrupts.interrupted) throw this.#interrupted("the turn was cancelled and the agent stopped");
      throw new ExecFailure(ExitCode.agentError, `the agent failed the turn: ${agentErrorText(outcome.error)}`);
    }
    const stopReason = outcome.response!.stopReason;
    if (this.#interrupts.interrupted) {
      if (outcome.endedLocally) throw this.#interrupted("the turn was cancelled and the agent stopped");
      return this.#result(exitCodeForSignal(this.#interrupts.signal), { stopReason });
    }
    if (stopReason === "cancelled") {
      // Nobody here asked for it (no Ctrl-C, no --timeout): not the user's cancel, so not exit 130.
      const message =
        "the agent ended the turn as cancelled, which this run did not ask for" +
        ("url" in this.#options.agent
          ? " (a remote server cancels its running turns when it shuts down: is it still up?)"
          : "");
      this.#renderer.note(`acp exec: ${message}`);
      return this.#result(ExitCode.agentError, { stopReason, error: message });
    }
    const code = exitCodeFor(stopReason);
    if (code !== ExitCode.endTurn) this.#renderer.note(`acp exec: the turn ended with stop reason "${stopReason}"`);
    return this.#result(code, { stopReason });
  }

  /** Stops the agent while still reading it (updates it sends after its answer are rendered), then closes. Once. */
  #settle(): Promise<void> {
    this.#settling ??= (async () => {
      this.#interrupts.dispose();
      this.#clock.dispose();
      await this.#client.releaseHosts();
      await this.#agent.stop();
      this.#client.close();
    })();
    return this.#settling;
  }

  // ---- Results -----------------------------------------------------------------------------------------------

  #result(exitCode: number, extra: Partial<ExecResult> = {}): number {
    const warnings = this.#warnings.length > 0 ? { warnings: this.#warnings } : {};
    this.#renderer.finish({
      exitCode,
      sessionId: this.#sessionId,
      transcript: this.#transcript,
      ...warnings,
      ...extra,
    });
    return exitCode;
  }

  #fail(exitCode: number, problem: string): number {
    const message = withTokenHint(problem);
    this.#renderer.note(`acp exec: ${message}`);
    return this.#result(exitCode, { error: message });
  }

  #warn(message: string): void {
    this.#warnings.push(message);
    this.#renderer.note(`acp exec: warning: ${message}`);
  }

  /** The run was interrupted: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP, saying whether the agent was stopped. */
  #interrupted(message: string): ExecFailure {
    const { stopped, signal } = this.#interrupts;
    return new ExecFailure(
      exitCodeForSignal(signal),
      stopped ? `stopped (${signal ?? "interrupt"}): ${message}` : message,
    );
  }

  /** The agent's last stderr lines, for messages. */
  #agentStderr(): string {
    const lines = this.#agent.stderrTail();
    return lines.length === 0
      ? "it printed nothing on stderr"
      : `it printed:\n${lines.map((line) => `  | ${line}`).join("\n")}\n`;
  }
}

function makeRenderer(
  options: ExecOptions,
  output: ExecOutput,
  transcript: () => Transcript | undefined,
): ExecRenderer {
  const { out, err } = output;
  if (options.format === "json") return new JsonRenderer(out, (text) => err(`${text}\n`));
  if (options.format === "ndjson") return new NdjsonRenderer(out, (text) => err(`${text}\n`));
  return new TextRenderer({
    out,
    err,
    outPaint: painterFor(process.stdout),
    errPaint: painterFor(process.stderr),
    verbose: options.verbose,
    transcript,
  });
}
