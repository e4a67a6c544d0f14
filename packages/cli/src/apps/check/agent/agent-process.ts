/**
 * One agent process under `acp check agent`: launched with the launcher (own process group, stderr captured,
 * nothing left behind), driven frame by frame by a `ScriptPeer` playing the client, every frame the agent writes
 * checked by the rule engine. Serves the agent's requests as a real client would: files and terminals through
 * `FileSystemHost` and `TerminalHost` confined to the session's roots, permission requests by a policy the scenario
 * sets (allow by default, or hold them unanswered).
 */
import { ErrorCodes, RequestError } from "@acpkit/sdk";
import { FileSystemHost, TerminalHost, launchAgent, type LaunchedAgent } from "@acpkit/sdk/node";
import { scriptPeerOver } from "@acpkit/sdk/node";
import { PROTOCOL_VERSION } from "@acpkit/sdk";
import {
  WaitTimeoutError,
  WireChecker,
  updateKindOf,
  type Finding,
  type ScriptPeer,
  type WireEvent,
} from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../results.js";

/** What is checked and how long it has. */
export interface AgentTarget {
  argv: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** How long the agent has to answer initialize and session setup. */
  startupTimeoutMs: number;
  /** How long a prompt turn may take before the scenario counts it as not answered. */
  turnTimeoutMs: number;
  /** acpkit's version, sent as clientInfo. */
  version: string;
  /** The agent process's working directory (sessions get their own). Default: this process's. */
  cwd?: string;
  /** `--auth METHOD`: every process logs in with this method before its sessions (`authenticate`). */
  auth?: string;
  /** `--env NAME=VALUE`: added to the agent's environment, over everything else (the isolation included). */
  extraEnv?: Readonly<Record<string, string>>;
}

/** The agent did not start: spawn failure, no answer to initialize, or it died first. */
export class AgentDidNotStart extends Error {
  override readonly name = "AgentDidNotStart";
}

/** How the checker answers a permission request: an outcome, or `hold` to leave it pending. */
export type PermissionAnswer = { outcome: "selected"; optionId: string } | { outcome: "cancelled" } | "hold";

export const CLIENT_CAPABILITIES = { fs: { readTextFile: true, writeTextFile: true }, terminal: true };

/** A prompt turn in flight. */
export interface Turn {
  sessionId: string;
  /** The `session/prompt` request. */
  request: WireEvent;
  /** Index of the request in the conversation: updates of the turn come after it. */
  since: number;
  response: Promise<WireEvent>;
}

export class AgentProcess {
  /** The initialize result, once answered. */
  init: Record<string, unknown> | undefined;
  /** Milliseconds from spawn to the initialize answer. */
  startupMs: number | undefined;
  /** Decides each permission request. Default: the first allow option. */
  permissionPolicy: (request: WireEvent) => PermissionAnswer = allowFirst;
  /** Permission requests received, in order. */
  readonly permissionRequests: WireEvent[] = [];
  private readonly roots = new Map<string, string[]>();
  private readonly fsHost: FileSystemHost;
  private readonly terminals: TerminalHost;
  private stopped: Promise<void> | undefined;

  private constructor(
    readonly target: AgentTarget,
    readonly launched: LaunchedAgent,
    readonly peer: ScriptPeer,
    private readonly spawnedAt: number,
  ) {
    const rootsOf = (sessionId: string) => this.roots.get(sessionId);
    this.fsHost = new FileSystemHost({ roots: rootsOf });
    this.terminals = new TerminalHost({ roots: rootsOf });
    peer.onRequest((event) => this.serve(event));
  }

  /**
   * Launches the agent, with `isolation` (its own HOME and data directories) and then `--env` added to its
   * environment. Throws `AgentDidNotStart` when it cannot be started.
   */
  static async launch(target: AgentTarget, isolation: Readonly<Record<string, string>> = {}): Promise<AgentProcess> {
    const cwd = target.cwd ?? process.cwd();
    const spawnedAt = performance.now();
    let launched: LaunchedAgent;
    try {
      launched = await launchAgent({
        argv: target.argv,
        cwd,
        ...(target.env ? { env: target.env } : {}),
        extraEnv: { ...isolation, ...target.extraEnv },
        startupTimeoutMs: target.startupTimeoutMs,
      });
    } catch (error) {
      throw new AgentDidNotStart((error as Error).message);
    }
    const peer = scriptPeerOver(launched.child.stdout!, launched.child.stdin!, {
      side: "client",
      checker: new WireChecker({ judge: ["agent"] }),
    });
    return new AgentProcess(target, launched, peer, spawnedAt);
  }

  /** The agent's last stderr lines, quoted in messages. */
  stderr(): string {
    const lines = this.launched.stderrTail();
    return lines.length === 0
      ? "it printed nothing on stderr"
      : `its stderr ended with:\n${lines
          .slice(-8)
          .map((l) => `  | ${l}`)
          .join("\n")}`;
  }

  /** Sends initialize and waits for a result. Throws `AgentDidNotStart` on no answer, an error or an exit. */
  async initialize(params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const { response } = this.peer.request(
      "initialize",
      {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: CLIENT_CAPABILITIES,
        clientInfo: { name: "acp-check", title: "acp check agent", version: this.target.version },
        ...params,
      },
      { timeoutMs: this.target.startupTimeoutMs },
    );
    let answer: WireEvent;
    try {
      answer = await response;
    } catch (error) {
      const why =
        error instanceof WaitTimeoutError
          ? `did not answer initialize within ${this.target.startupTimeoutMs} ms`
          : "exited before answering initialize";
      throw new AgentDidNotStart(`the agent ${why}; ${this.stderr()}`);
    }
    if (answer.error !== undefined)
      throw new AgentDidNotStart(`the agent answered initialize with an error: ${describeError(answer.error)}`);
    this.startupMs ??= performance.now() - this.spawnedAt;
    this.init = (answer.result ?? {}) as Record<string, unknown>;
    return this.init;
  }

  /**
   * Logs in with `methodId` (`--auth`). Not exercised when the agent refuses: the credentials may be missing, which
   * says nothing about the protocol.
   */
  async authenticate(methodId: string): Promise<void> {
    const answer = await this.call("authenticate", { methodId }, this.target.startupTimeoutMs);
    if (answer.error !== undefined)
      throw new NotExercised(
        `authenticate with "${methodId}" (--auth) was refused: ${describeError(answer.error)}; the agent may ` +
          `need credentials: give them with --env NAME=VALUE`,
      );
  }

  /** `agentCapabilities` from initialize. */
  get capabilities(): Record<string, unknown> {
    return (this.init?.agentCapabilities ?? {}) as Record<string, unknown>;
  }

  /** Opens a session in `cwd`. Not exercised when the agent needs authentication; failed on any other error. */
  async newSession(cwd: string): Promise<string> {
    const answer = await this.call("session/new", { cwd, mcpServers: [] }, this.target.startupTimeoutMs);
    if (answer.error !== undefined) {
      const code = (answer.error as { code?: unknown }).code;
      if (code === ErrorCodes.authRequired) {
        if (this.target.auth === undefined)
          throw new NotExercised(
            `the agent needs authentication before session/new (${describeError(answer.error)}); log in with ` +
              `--auth METHOD (one of its authMethods) and give the credentials it needs with --env NAME=VALUE`,
          );
        throw new CheckFailed(
          `the agent answered authenticate with "${this.target.auth}" with success, then refused session/new ` +
            `with ${describeError(answer.error)}. After a successful authenticate, authenticated requests may ` +
            `proceed (the spec's authentication flow); an agent that could not log the client in must say so ` +
            `with an error from authenticate, not a success.`,
        );
      }
      throw new CheckFailed(`the agent answered session/new with an error: ${describeError(answer.error)}`);
    }
    const sessionId = (answer.result as { sessionId?: unknown } | undefined)?.sessionId;
    if (typeof sessionId !== "string")
      throw new CheckFailed(
        "the agent answered session/new without a sessionId; the agent MUST answer with a unique session id",
      );
    this.roots.set(sessionId, [cwd]);
    return sessionId;
  }

  /** Makes the checker's hosts accept a session set up by load or resume. */
  adopt(sessionId: string, cwd: string): void {
    this.roots.set(sessionId, [cwd]);
  }

  /** Sends a request and waits for its answer (timeouts and exits become `CheckFailed` with the stderr). */
  async call(method: string, params: unknown, timeoutMs: number): Promise<WireEvent> {
    const { response } = this.peer.request(method, params, { timeoutMs });
    try {
      return await response;
    } catch (error) {
      if (error instanceof WaitTimeoutError)
        throw new CheckFailed(`the agent did not answer ${method} within ${timeoutMs} ms`);
      throw new CheckFailed(`the agent exited while ${method} was pending; ${this.stderr()}`);
    }
  }

  /** Starts a prompt turn; `response` rejects with `WaitTimeoutError` after the turn timeout. */
  prompt(sessionId: string, text: string, timeoutMs = this.target.turnTimeoutMs): Turn {
    const since = this.peer.events.length;
    const { event, response } = this.peer.request(
      "session/prompt",
      { sessionId, prompt: [{ type: "text", text }] },
      { timeoutMs },
    );
    return { sessionId, request: event, since, response };
  }

  /** Waits for the turn's answer; not answered in time is "not exercised" (the agent may need its model). */
  async finish(turn: Turn, what: string): Promise<WireEvent> {
    try {
      return await turn.response;
    } catch (error) {
      if (error instanceof WaitTimeoutError)
        throw new NotExercised(
          `the agent did not answer ${what} within ${error.timeoutMs} ms (offline, an agent may need its ` +
            `model to answer)`,
        );
      throw new CheckFailed(`the agent exited during ${what}; ${this.stderr()}`);
    }
  }

  /** The agent's `session/update`s for a session from event index `since` (to `until`, exclusive). */
  updates(sessionId: string, since: number, until = this.peer.events.length): WireEvent[] {
    return this.peer.events
      .slice(since, until)
      .filter(
        (e) =>
          e.from === "agent" &&
          updateKindOf(e) !== undefined &&
          (e.params as { sessionId?: unknown }).sessionId === sessionId,
      );
  }

  /** Every finding of the conversation so far (ends it: call after stop). */
  findings(): Finding[] {
    return this.peer.checker.end();
  }

  /** Stops the agent (stdin closed, then the group signalled) and releases what the checker's hosts hold. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await this.terminals.releaseAll().catch(() => {});
      await this.launched.stop();
      this.peer.receiveEnd();
    })();
    return this.stopped;
  }

  private serve(event: WireEvent): void {
    const params = (event.params ?? {}) as never;
    const answer = (work: () => unknown) => {
      Promise.resolve()
        .then(work)
        .then(
          (result) => this.peer.respond(event, result ?? {}),
          (error: unknown) => {
            if (error instanceof RequestError) this.peer.respondError(event, error.code, error.message, error.data);
            else this.peer.respondError(event, ErrorCodes.internalError, (error as Error).message);
          },
        );
    };
    switch (event.method) {
      case "session/request_permission": {
        this.permissionRequests.push(event);
        const decision = this.permissionPolicy(event);
        if (decision !== "hold") this.peer.respond(event, { outcome: decision });
        return;
      }
      case "fs/read_text_file":
        return answer(() => this.fsHost.readTextFile(params));
      case "fs/write_text_file":
        return answer(() => this.fsHost.writeTextFile(params));
      case "terminal/create":
        return answer(() => this.terminals.createTerminal(params));
      case "terminal/output":
        return answer(() => this.terminals.terminalOutput(params));
      case "terminal/wait_for_exit":
        return answer(() => this.terminals.waitForTerminalExit(params));
      case "terminal/kill":
        return answer(() => this.terminals.killTerminal(params));
      case "terminal/release":
        return answer(() => this.terminals.releaseTerminal(params));
      default:
        this.peer.respondError(event, ErrorCodes.methodNotFound, `"Method not found": ${event.method}`, {
          method: event.method,
        });
    }
  }
}

/** Selects the first allow option (else the first option). */
export function allowFirst(request: WireEvent): PermissionAnswer {
  const options = ((request.params as { options?: Array<{ optionId: string; kind: string }> }).options ?? []) as Array<{
    optionId: string;
    kind: string;
  }>;
  const option =
    options.find((o) => o.kind === "allow_once") ?? options.find((o) => o.kind.startsWith("allow")) ?? options[0];
  return option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" };
}

/** Selects the first reject option. */
export function rejectFirst(request: WireEvent): PermissionAnswer {
  const options = ((request.params as { options?: Array<{ optionId: string; kind: string }> }).options ?? []) as Array<{
    optionId: string;
    kind: string;
  }>;
  const option = options.find((o) => o.kind === "reject_once") ?? options.find((o) => o.kind.startsWith("reject"));
  return option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" };
}

/** `-32000 Authentication required` from an error member. */
export function describeError(error: unknown): string {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  return `${String(e.code)} ${typeof e.message === "string" ? e.message : JSON.stringify(e.message)}`;
}

/** Concatenated text of `agent_message_chunk` (or another chunk kind) updates. */
export function chunkText(updates: readonly WireEvent[], kind = "agent_message_chunk"): string {
  let text = "";
  for (const event of updates) {
    const update = (event.params as { update?: { sessionUpdate?: string; content?: { type?: string; text?: string } } })
      .update;
    if (update?.sessionUpdate === kind && update.content?.type === "text" && typeof update.content.text === "string")
      text += update.content.text;
  }
  return text;
}
