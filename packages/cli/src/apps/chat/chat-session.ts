/**
 * The chat's connection to its agent, without any terminal I/O: launches the agent, initializes it, hosts files
 * and terminals for it, routes `session/update`s into a `Transcript` per session, asks the UI for permissions
 * through a `PermissionBroker`, and runs prompt turns, cancels, mode and config changes, and session listing,
 * loading and resuming.
 */
import { attachParams, sharedEchoOf } from "./attach.js";
import { chatClient } from "./chat-client.js";
import { ClientSideConnection } from "@acpkit/sdk";
import { supportedMcpServers } from "@acpkit/sdk/client-toolkit";
import {
  brokerGate,
  interactive,
  PermissionBroker,
  TranscriptRouter,
  TurnGuard,
  withMemory,
  type Transcript,
  type Turn,
} from "@acpkit/sdk/client-toolkit";
import { silentLogger } from "@acpkit/sdk";
import {
  authenticateWith,
  FileSystemHost,
  initializeWithDeadline,
  TerminalHost,
  withAuthentication,
  type AuthContext,
} from "@acpkit/sdk/node";
import { openAgentEndpoint, type AgentEndpoint } from "@acpkit/sdk/node";
import type * as schema from "@acpkit/sdk";
import { PROTOCOL_VERSION } from "@acpkit/sdk";
import { checkProtocolVersion } from "@acpkit/sdk/client-toolkit";
import type { ChatSessionOptions } from "./chat-session-options.js";
import { withDeadline } from "./deadline.js";
import { TerminalViews } from "./terminal-views.js";

export type { ChatSessionOptions } from "./chat-session-options.js";

/**
 * One agent process and its current session. Contracts:
 * - `prompt` runs one turn at a time and resolves with the ended turn (errors end the turn, they do not throw).
 * - `cancel` sends `session/cancel`, marks the turn cancelled and answers its pending permission requests
 *   `cancelled` at once (the spec's MUST). Turns run through a `TurnGuard`: an agent that answers `end_turn` to a
 *   cancel is reported cancelled (a warning), one that does not end the turn within `cancelDeadlineMs` has it ended
 *   here (`onCancelIgnored`: the caller stops or `restart`s the agent), updates after an answer stay with their turn.
 * - `newSession`, `resume`: bounded by `startupTimeoutMs`; an agent that never answers is reported, not waited on.
 * - `close` stops the agent and every terminal it started.
 */
export class ChatSession {
  readonly connection: ClientSideConnection;
  readonly init: schema.InitializeResponse;
  readonly router: TranscriptRouter;
  /** What the chat shows of each terminal the agent created. */
  readonly terminals: TerminalViews;
  #transcript: Transcript | undefined;
  #sessionId: string | undefined;
  readonly #options: ChatSessionOptions;
  readonly #agent: AgentEndpoint;
  readonly #broker: PermissionBroker;
  readonly #terminalHost: TerminalHost;
  readonly #roots = new Map<string, string[]>();
  readonly #clientCapabilities: schema.ClientCapabilities;
  readonly #mcpServers: schema.McpServer[];
  readonly #guard: TurnGuard;
  #authenticatedWith: string | undefined;

  private constructor(
    options: ChatSessionOptions,
    agent: AgentEndpoint,
    connection: ClientSideConnection,
    init: schema.InitializeResponse,
    parts: {
      router: TranscriptRouter;
      broker: PermissionBroker;
      terminalHost: TerminalHost;
      roots: Map<string, string[]>;
      clientCapabilities: schema.ClientCapabilities;
      guard: TurnGuard;
      terminals: TerminalViews;
    },
  ) {
    this.#options = options;
    this.#guard = parts.guard;
    this.#agent = agent;
    this.connection = connection;
    this.init = init;
    this.router = parts.router;
    this.#broker = parts.broker;
    this.#terminalHost = parts.terminalHost;
    this.#roots = parts.roots;
    this.#clientCapabilities = parts.clientCapabilities;
    this.terminals = parts.terminals;
    const { supported, unsupported } = supportedMcpServers(options.mcpServers ?? [], init.agentCapabilities);
    this.#mcpServers = supported;
    for (const server of unsupported)
      options.onNote?.(
        `MCP server "${server.name}" left out: the agent does not accept ` +
          `${"type" in server ? server.type : "stdio"} MCP servers`,
      );
  }

  /** Launches and initializes the agent (no session yet: call `newSession` or `load`). */
  static async start(options: ChatSessionOptions): Promise<ChatSession> {
    const roots = new Map<string, string[]>();
    const router = new TranscriptRouter();
    const policy =
      options.policy ?? withMemory(interactive((request, context) => options.ask(request, context.signal)));
    const broker = new PermissionBroker(policy, {
      lookupToolCall: (sessionId, id) => router.get(sessionId)?.toolCall(id),
    });
    const rootsOf = (sessionId: string) => roots.get(sessionId);
    const policyName = options.policyName ?? "ask";
    const gate = brokerGate(broker, { policyName, reads: policyName === "ask" ? "serve" : "policy" });
    const fsHost = new FileSystemHost({ roots: rootsOf, gate });
    const terminals = new TerminalViews(options.onTerminal);
    const terminalHost = new TerminalHost({
      roots: rootsOf,
      gate,
      onOutput: (event) => terminals.output(event.sessionId, event.terminalId, event.text),
      onExit: (event) => terminals.exit(event.sessionId, event.terminalId, event.exitStatus),
    });
    const agent = await openAgentEndpoint(options.remote ?? { argv: options.argv }, {
      cwd: options.cwd,
      startupTimeoutMs: options.startupTimeoutMs ?? 30_000,
      onStderrLine: options.onStderrLine,
    });
    // The guard reaches the connection lazily: the connection's handlers use it.
    const guard = new TurnGuard(
      {
        prompt: (params, requestOptions) => connection.prompt(params, requestOptions),
        cancel: (params) => connection.cancel(params),
      },
      {
        cancelDeadlineMs: options.cancelDeadlineMs ?? 5000,
        onViolation: (violation) => options.onWarning?.(violation.message),
        onCancelIgnored: () => options.onCancelIgnored?.(),
      },
    );
    const client = chatClient({ router, guard, broker, fsHost, terminalHost, terminals });
    // The chat owns the terminal: library warnings on stderr would tear its screen.
    const connection = new ClientSideConnection(() => client, agent.stream, { logger: silentLogger });
    if (options.tap) connection.tap(options.tap);
    terminalHost.releaseAllWhenClosed(connection);
    // No terminal auth methods: the chat owns the terminal while it runs (see `authenticate`).
    const clientCapabilities: schema.ClientCapabilities = {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    };
    try {
      const init = await initializeWithDeadline(
        connection,
        {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities,
          clientInfo: { name: "acp-chat", title: "acp chat", version: "0.1.0" },
        },
        agent,
      );
      const verdict = checkProtocolVersion(PROTOCOL_VERSION, init.protocolVersion);
      if (!verdict.ok) throw new Error(verdict.message);
      if (verdict.warning !== undefined) options.onWarning?.(verdict.warning);
      return new ChatSession(options, agent, connection, init, {
        router,
        broker,
        terminalHost,
        roots,
        clientCapabilities,
        guard,
        terminals,
      });
    } catch (error) {
      connection.close(error);
      await agent.stop();
      throw error;
    }
  }

  /** The current session's transcript (undefined before the first session). */
  get transcript(): Transcript | undefined {
    return this.#transcript;
  }
  get sessionId(): string | undefined {
    return this.#sessionId;
  }
  get cwd(): string {
    return this.#options.cwd;
  }
  get capabilities(): schema.AgentCapabilities {
    return this.init.agentCapabilities ?? {};
  }
  /** The agent's name for display. */
  get agentName(): string {
    return this.init.agentInfo?.title ?? this.init.agentInfo?.name ?? this.#agent.label;
  }
  /** What the agent printed on stderr lately. */
  stderrTail(): string[] {
    return this.#agent.stderrTail();
  }

  /** The MCP servers sent with every session (the agent can take them all). */
  get mcpServers(): readonly schema.McpServer[] {
    return this.#mcpServers;
  }

  /**
   * Starts a new session in `cwd` and makes it current; authenticates and retries when the agent answers
   * `auth_required`.
   */
  async newSession(): Promise<Transcript> {
    const response = await this.#withAuth(() =>
      this.#bounded("session/new", this.connection.newSession({ cwd: this.cwd, mcpServers: this.#mcpServers })),
    );
    return this.#open(response.sessionId, response);
  }

  /**
   * Stops this agent and starts it again with the same options (after it ignored a cancel, say), then continues the
   * current session when the agent can load or resume it, else starts a new one. Resolves with the new session.
   */
  async restart(): Promise<ChatSession> {
    const sessionId = this.#sessionId;
    await this.close();
    const next = await ChatSession.start(this.#options);
    if (this.#authenticatedWith !== undefined) await next.authenticate(this.#authenticatedWith);
    const canContinue = next.capabilities.loadSession === true || next.capabilities.sessionCapabilities?.resume != null;
    if (sessionId !== undefined && canContinue) await next.resume(sessionId);
    else await next.newSession();
    return next;
  }

  /** Loads (history replayed into the transcript) or, failing that capability, resumes a session. */
  async resume(sessionId: string): Promise<Transcript> {
    if (this.capabilities.loadSession) {
      this.#roots.set(sessionId, [this.cwd]);
      const transcript = this.router.open(sessionId);
      this.#setCurrent(sessionId, transcript);
      const response = await this.#withAuth(() =>
        this.#bounded(
          "session/load",
          this.connection.loadSession({ sessionId, cwd: this.cwd, mcpServers: this.#mcpServers }),
        ),
      );
      transcript.setup(response ?? {});
      return transcript;
    }
    if (this.capabilities.sessionCapabilities?.resume) {
      const response = await this.#withAuth(() =>
        this.#bounded(
          "session/resume",
          this.connection.resumeSession({ sessionId, cwd: this.cwd, mcpServers: this.#mcpServers }),
        ),
      );
      return this.#open(sessionId, response ?? {});
    }
    throw new Error("this agent can neither load nor resume sessions");
  }

  /** Joins a live shared session on an `acp serve` (`session/attach`, history replayed first); see `attach.ts`. */
  async attach(sessionId: string, role: "controller" | "observer"): Promise<Transcript> {
    this.#roots.set(sessionId, [this.cwd]);
    const transcript = this.router.open(sessionId);
    this.#setCurrent(sessionId, transcript);
    const attached = await this.#bounded(
      "session/attach",
      this.connection.connection.request<{ clientId: string }>("session/attach", attachParams(sessionId, role)),
    );
    sharedEchoOf(this.router).own.add(attached.clientId);
    transcript.setup({});
    return transcript;
  }

  /** The agent's sessions for this cwd (all pages). */
  async listSessions(): Promise<schema.SessionInfo[]> {
    if (!this.capabilities.sessionCapabilities?.list) throw new Error("this agent does not list sessions");
    const sessions: schema.SessionInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const response = await this.connection.listSessions({ cwd: this.cwd, ...(cursor ? { cursor } : {}) });
      sessions.push(...response.sessions);
      cursor = response.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return sessions;
  }

  /** Runs one prompt turn in the current session; resolves with the ended turn. */
  async prompt(blocks: schema.ContentBlock[]): Promise<Turn> {
    const transcript = this.#requireSession();
    const sessionId = this.#sessionId!;
    transcript.beginTurn(blocks);
    try {
      const response = await this.#guard.prompt({ sessionId, prompt: blocks });
      return transcript.endTurn(response.stopReason)!;
    } catch (error) {
      return transcript.failTurn(error)!;
    }
  }

  /** Cancels the running turn, if any (see the class contract). Returns whether one was running. */
  cancel(): boolean {
    const transcript = this.#transcript;
    if (transcript?.currentTurn === undefined || this.#sessionId === undefined) return false;
    transcript.requestCancel();
    this.#broker.cancelSession(this.#sessionId);
    this.#guard.cancel(this.#sessionId);
    return true;
  }

  /** Switches the session mode (`session/set_mode`) and records it in the transcript. */
  async setMode(modeId: string): Promise<void> {
    const transcript = this.#requireSession();
    await this.connection.setSessionMode({ sessionId: this.#sessionId!, modeId });
    transcript.apply({ sessionUpdate: "current_mode_update", currentModeId: modeId });
  }

  /** Sets a config option (`session/set_config_option`); the answer's options replace the transcript's. */
  async setConfig(configId: string, value: string | boolean): Promise<void> {
    const transcript = this.#requireSession();
    const params =
      typeof value === "boolean"
        ? { sessionId: this.#sessionId!, configId, type: "boolean" as const, value }
        : { sessionId: this.#sessionId!, configId, value };
    const response = await this.connection.setSessionConfigOption(params);
    if (response?.configOptions)
      transcript.apply({ sessionUpdate: "config_option_update", configOptions: response.configOptions });
  }

  /**
   * Authenticates with one of the agent's `authMethods` (`methodId`), or the one it offers when it offers one
   * usable method. Terminal methods are not offered: the chat does not advertise `auth.terminal`, since it holds
   * the terminal. Throws `AuthFailure` saying what the agent needs.
   */
  async authenticate(methodId?: string): Promise<string> {
    const id = await authenticateWith(this.#authContext(), methodId);
    this.#authenticatedWith = id;
    return id;
  }

  /** Stops the agent and its terminals. */
  async close(): Promise<void> {
    this.#guard.close();
    this.#broker.close();
    this.connection.close("the chat ended");
    await Promise.all([this.#terminalHost.releaseAll(), this.#agent.stop()]);
  }

  #authContext(): AuthContext {
    return {
      connection: this.connection,
      methods: this.init.authMethods,
      clientCapabilities: this.#clientCapabilities,
      interactive: false,
      agentArgv: this.#agent.argv,
      cwd: this.cwd,
      note: (text) => this.#options.onNote?.(text),
    };
  }

  /** Waits for `request` at most `startupTimeoutMs`; then rejects saying what the agent did not answer. */
  #bounded<T>(method: string, request: Promise<T>): Promise<T> {
    const ms = this.#options.startupTimeoutMs ?? 30_000;
    return withDeadline(request, ms, () => {
      const tail = this.stderrTail();
      const printed =
        tail.length === 0
          ? "it printed nothing on stderr"
          : `it printed:\n${tail.map((line) => `  | ${line}`).join("\n")}`;
      return new Error(
        `the agent did not answer ${method} within ${ms} ms; ${printed}\n(:restart restarts the agent; ` +
          `--startup-timeout gives it longer)`,
      );
    });
  }

  #withAuth<T>(open: () => Promise<T>): Promise<T> {
    return withAuthentication(this.#authContext(), open, this.#authenticatedWith);
  }

  #open(sessionId: string, setup: schema.NewSessionResponse | schema.ResumeSessionResponse): Transcript {
    this.#roots.set(sessionId, [this.cwd]);
    const transcript = this.router.open(sessionId, setup);
    this.#setCurrent(sessionId, transcript);
    return transcript;
  }

  #setCurrent(sessionId: string, transcript: Transcript): void {
    this.#sessionId = sessionId;
    this.#transcript = transcript;
    this.#options.onSession?.(transcript);
  }

  #requireSession(): Transcript {
    if (this.#transcript === undefined) throw new Error("no session yet");
    return this.#transcript;
  }
}
