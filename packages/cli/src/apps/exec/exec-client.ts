/**
 * The client side of an `acp exec` run: the connection to the agent with the client's handlers. Updates are folded
 * into transcripts and rendered; permission requests go to the run's policy; the file system and terminal hosts
 * serve only the session this run set up, under the same policy (see `brokerGate`); a `TurnGuard` watches the
 * turn and stops an agent that ignores a cancel.
 */
import { ClientSideConnection, type Client, type Stream } from "@acpkit/sdk";
import { brokerGate, PermissionBroker, TranscriptRouter, TurnGuard } from "@acpkit/sdk/client-toolkit";
import { FileSystemHost, TerminalHost } from "@acpkit/sdk/node";
import { droppedUpdates } from "./exec-logger.js";
import type { ExecOptions } from "./exec-options.js";
import type { ExecRenderer } from "./renderer.js";
import { UnansweredRequests } from "./run-clock.js";
import { CANCEL_GRACE_MS } from "./run-turn.js";

/** What the client needs from its run. */
export interface ExecClientInput {
  stream: Stream;
  options: ExecOptions;
  renderer: ExecRenderer;
  /** The session this run set up; undefined before. */
  sessionId(): string | undefined;
  /** A warning for the run's result (and stderr). */
  warn(message: string): void;
  /** Stops the agent (it did not end the turn within the grace period after a cancel). */
  stopAgent(): void;
}

export class ExecClient {
  readonly router = new TranscriptRouter();
  readonly broker: PermissionBroker;
  readonly guard: TurnGuard;
  readonly connection: ClientSideConnection;
  /** The requests the agent has not answered yet, for messages about a deadline. */
  readonly unanswered = new UnansweredRequests();
  readonly #input: ExecClientInput;
  readonly #terminals: TerminalHost;

  constructor(input: ExecClientInput) {
    this.#input = input;
    const { options, renderer } = input;
    this.broker = new PermissionBroker(options.policy, {
      lookupToolCall: (s, id) => this.router.get(s)?.toolCall(id),
    });
    const roots = (id: string) => (id === input.sessionId() ? [options.cwd] : undefined);
    const gate = brokerGate(this.broker, {
      policyName: options.policyName,
      reads: options.policyName === "ask" ? "serve" : "policy",
    });
    const fsHost = new FileSystemHost({ roots, gate });
    const terminals = new TerminalHost({ roots, gate });
    this.#terminals = terminals;
    // The guard reaches the connection lazily: it exists before the connection whose handlers use it.
    this.guard = new TurnGuard(
      {
        prompt: (params, promptOptions) => this.connection.prompt(params, promptOptions),
        cancel: (params) => this.connection.cancel(params),
      },
      {
        cancelDeadlineMs: CANCEL_GRACE_MS,
        onViolation: (violation) => input.warn(violation.message),
        onCancelIgnored: () => {
          renderer.note(
            `acp exec: the agent did not end the turn within ${CANCEL_GRACE_MS} ms of the cancel; stopping it`,
          );
          input.stopAgent();
        },
      },
    );
    const continuing = options.session !== undefined || options.resume;
    const client: Client = {
      sessionUpdate: (notification) => {
        const placement = this.guard.observe(notification);
        this.router.route(notification);
        // Updates before the turn are history being replayed only when continuing a session; a new session's are
        // shown.
        const where =
          placement.turn === undefined ? (continuing ? "before" : "turn") : placement.late ? "late" : "turn";
        const sessionId = input.sessionId();
        if (sessionId === undefined || notification.sessionId === sessionId) renderer.update(notification, where);
      },
      requestPermission: async (request) => {
        const response = await this.broker.request(request);
        renderer.permission(request, response, options.policyName);
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
    // exec chooses what reaches stderr itself (its messages, the agent's stderr tail, --trace): of the library's
    // lines, only what the agent sent that could not be shown (a session/update failing the schema is not dropped
    // silently).
    this.connection = new ClientSideConnection(() => client, input.stream, { logger: droppedUpdates(input.warn) });
    this.connection.tap(this.unanswered.listener);
    if (options.trace) this.connection.tap(options.trace);
  }

  /** Cancels the running turn (the guard stops the agent if it does not end it in time); false when none runs. */
  cancelTurn(): boolean {
    const sessionId = this.#input.sessionId();
    if (sessionId === undefined || !this.guard.isRunning(sessionId)) return false;
    this.router.get(sessionId)?.requestCancel();
    this.broker.cancelSession(sessionId);
    return this.guard.cancel(sessionId);
  }

  /** True while the run's turn runs. */
  get turnRunning(): boolean {
    const sessionId = this.#input.sessionId();
    return sessionId !== undefined && this.guard.isRunning(sessionId);
  }

  /** Answers pending permission requests `cancelled` and releases every terminal (before the agent stops). */
  async releaseHosts(): Promise<void> {
    this.broker.close();
    await this.#terminals.releaseAll();
  }

  /** Closes the guard, the transcripts and the connection (after the agent stopped). */
  close(): void {
    this.guard.close();
    this.router.close();
    this.connection.close("acp exec finished");
  }
}
