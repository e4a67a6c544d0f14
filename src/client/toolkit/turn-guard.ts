/**
 * `TurnGuard`: client middleware that holds agents to the prompt-turn rules a client depends on, and keeps the
 * client working when they break them. Opt-in; `acp exec` and `acp chat` use it. Browser-safe (timers only).
 *
 * What the protocol says, and what the guard does when an agent does otherwise:
 * - After `session/cancel` the agent MUST answer the prompt with `stopReason: "cancelled"` (and SHOULD stop
 *   promptly). An agent that answers `end_turn` (or another reason, or an error) instead is reported as
 *   `cancelled`, keeping what it said in `agentStopReason`, with a `stop_reason_after_cancel` violation.
 * - An agent that does not answer within `cancelDeadlineMs` of the cancel: the turn ends here (`endedLocally`,
 *   reported `cancelled`), a `cancel_ignored` violation is reported, and `onCancelIgnored` is called so the client
 *   can stop or restart the agent. A late answer is ignored.
 * - The agent MUST send every `session/update` of a turn before answering its `session/prompt`. Updates that come
 *   after the answer (and before the session's next prompt) belong to the turn that produced them: `observe` says
 *   so (`late: true` with that turn's number), and the first one of each turn is reported as
 *   `update_after_response`. A transcript folds them into that same ended turn (see `Transcript`).
 *
 * See protocol docs: [Prompt Turn: Cancellation](https://agentclientprotocol.com/protocol/prompt-turn#cancellation)
 */
import type { SendRequestOptions } from "../../jsonrpc/connection.js";
import { RequestError } from "../../jsonrpc/request-error.js";
import type {
  CancelNotification,
  PromptRequest,
  PromptResponse,
  SessionNotification,
  StopReason,
} from "../../protocol/index.js";

/** What the guard needs of a connection: a `ClientSideConnection`, or anything shaped like it. */
export interface GuardedConnection {
  prompt(params: PromptRequest, options?: SendRequestOptions): Promise<PromptResponse>;
  cancel(params: CancelNotification): Promise<void>;
}

/** An agent broke a prompt-turn rule. `message` names the mistake and what the guard did about it. */
export type TurnViolation =
  | { kind: "stop_reason_after_cancel"; sessionId: string; turn: number; agentStopReason: string; message: string }
  | { kind: "cancel_ignored"; sessionId: string; turn: number; deadlineMs: number; message: string }
  | { kind: "update_after_response"; sessionId: string; turn: number; sessionUpdate: string; message: string };

/** Options of `TurnGuard`. */
export interface TurnGuardOptions {
  /** How long the agent has to answer the prompt after `session/cancel`, in ms. Default 5000. */
  cancelDeadlineMs?: number;
  /** Hears each violation (once per kind and turn). */
  onViolation?: (violation: TurnViolation) => void;
  /** The agent did not honour a cancel in time (the turn already ended locally): stop or restart it here. */
  onCancelIgnored?: (sessionId: string) => void;
}

/** A prompt's outcome as the client should see it. */
export interface GuardedPromptResponse extends PromptResponse {
  /** `cancelled` whenever the client cancelled the turn, whatever the agent answered. */
  stopReason: StopReason;
  /** What the agent answered, when the guard reported something else (`end_turn` after a cancel, say). */
  agentStopReason?: string;
  /** The agent had not answered within the cancel deadline: the turn was ended here. */
  endedLocally?: true;
}

/** Where an update belongs (see `TurnGuard.observe`). */
export interface UpdatePlacement {
  /** The session's turn number the update belongs to (0 for the first prompt), or undefined before any prompt. */
  turn: number | undefined;
  /** True when it arrived after that turn's answer (or after the turn ended locally). */
  late: boolean;
}

interface SessionTurn {
  index: number;
  answered: boolean;
  cancelRequested: boolean;
  /** The agent ignored the cancel: the turn ended here, whatever it answers later. */
  endedLocally: boolean;
  lateReported: boolean;
  endLocally?: () => void;
  timer?: ReturnType<typeof setTimeout>;
}

const DEFAULT_CANCEL_DEADLINE_MS = 5000;

/** See the file comment. One guard serves every session of a connection. */
export class TurnGuard {
  readonly #connection: GuardedConnection;
  readonly #options: TurnGuardOptions;
  readonly #deadlineMs: number;
  readonly #turns = new Map<string, SessionTurn>();
  #closed = false;

  constructor(connection: GuardedConnection, options: TurnGuardOptions = {}) {
    this.#connection = connection;
    this.#options = options;
    this.#deadlineMs = options.cancelDeadlineMs ?? DEFAULT_CANCEL_DEADLINE_MS;
  }

  /** The session's current or last turn number, if it had one. */
  turnOf(sessionId: string): number | undefined {
    return this.#turns.get(sessionId)?.index;
  }

  /** Whether a turn of the session is waiting for the agent's answer. */
  isRunning(sessionId: string): boolean {
    const turn = this.#turns.get(sessionId);
    return turn !== undefined && !turn.answered;
  }

  /**
   * Sends `session/prompt` and resolves with the outcome as the client should see it (see the file comment).
   * Rejects as the prompt does (an error answer, a closed connection), except that a `RequestError` answered to a
   * cancelled turn is reported as `cancelled`.
   */
  prompt(params: PromptRequest, options: SendRequestOptions = {}): Promise<GuardedPromptResponse> {
    const previous = this.#turns.get(params.sessionId);
    if (previous !== undefined && !previous.answered) {
      return Promise.reject(
        new Error(`a prompt turn is still running in session ${params.sessionId}: wait for it (or cancel it) first`),
      );
    }
    const turn: SessionTurn = {
      index: previous === undefined ? 0 : previous.index + 1,
      answered: false,
      cancelRequested: false,
      endedLocally: false,
      lateReported: false,
    };
    this.#turns.set(params.sessionId, turn);
    const onResponse = options.onResponse;
    const answer = this.#connection.prompt(params, {
      ...options,
      onResponse: () => {
        // The exact place of the answer in the incoming stream: an update right behind it is late.
        turn.answered = true;
        onResponse?.();
      },
    });
    const local = new Promise<GuardedPromptResponse>((resolve) => {
      turn.endLocally = () => resolve({ stopReason: "cancelled", endedLocally: true });
    });
    const guarded = answer.then(
      (response) => this.#settled(params.sessionId, turn, response),
      (error: unknown) => this.#failed(params.sessionId, turn, error),
    );
    guarded.catch(() => {}); // when the turn ended locally, nobody waits on the agent's late answer
    return Promise.race([guarded, local]).finally(() => this.#finish(turn));
  }

  /**
   * Sends `session/cancel` for the session's running turn and starts the cancel deadline. Returns false (and
   * sends nothing) when no turn is running.
   */
  cancel(sessionId: string): boolean {
    const turn = this.#turns.get(sessionId);
    if (turn === undefined || turn.answered || this.#closed) return false;
    this.#connection.cancel({ sessionId }).catch(() => {});
    if (turn.cancelRequested) return true;
    turn.cancelRequested = true;
    turn.timer = setTimeout(() => this.#cancelIgnored(sessionId, turn), this.#deadlineMs);
    return true;
  }

  /**
   * Places a `session/update`: call it for every notification, before folding it. An update after its turn's
   * answer is `late` and belongs to that turn; the first of a turn is reported as a violation.
   */
  observe(notification: SessionNotification): UpdatePlacement {
    const turn = this.#turns.get(notification.sessionId);
    if (turn === undefined) return { turn: undefined, late: false };
    if (!turn.answered) return { turn: turn.index, late: false };
    if (!turn.lateReported) {
      turn.lateReported = true;
      const kind = (notification.update as { sessionUpdate?: unknown }).sessionUpdate;
      const sessionUpdate = typeof kind === "string" ? kind : "unknown";
      const when = turn.endedLocally
        ? "after its turn was ended here (it ignored the cancel)"
        : "after answering session/prompt; the protocol says every update of a turn comes before the answer";
      this.#report({
        kind: "update_after_response",
        sessionId: notification.sessionId,
        turn: turn.index,
        sessionUpdate,
        message: `the agent sent a session/update (${sessionUpdate}) ${when}. Kept with the turn that produced it.`,
      });
    }
    return { turn: turn.index, late: true };
  }

  /** Stops every deadline; turns still running are left to the connection (which rejects them when it closes). */
  close(): void {
    this.#closed = true;
    for (const turn of this.#turns.values()) if (turn.timer !== undefined) clearTimeout(turn.timer);
  }

  #settled(sessionId: string, turn: SessionTurn, response: PromptResponse): GuardedPromptResponse {
    if (!turn.cancelRequested || response.stopReason === "cancelled" || turn.endedLocally) return response;
    this.#report({
      kind: "stop_reason_after_cancel",
      sessionId,
      turn: turn.index,
      agentStopReason: response.stopReason,
      message:
        `the agent answered "${response.stopReason}" to a cancelled turn; the protocol says it MUST answer ` +
        `"cancelled". Reported as cancelled.`,
    });
    return { ...response, stopReason: "cancelled", agentStopReason: response.stopReason };
  }

  #failed(sessionId: string, turn: SessionTurn, error: unknown): GuardedPromptResponse {
    if (!turn.cancelRequested || turn.endedLocally || !(error instanceof RequestError)) throw error;
    this.#report({
      kind: "stop_reason_after_cancel",
      sessionId,
      turn: turn.index,
      agentStopReason: `error ${error.code}`,
      message:
        `the agent answered a cancelled turn with an error (${error.code}: ${error.message}); the protocol says ` +
        `it MUST answer "cancelled". Reported as cancelled.`,
    });
    return { stopReason: "cancelled", agentStopReason: `error ${error.code}` };
  }

  #cancelIgnored(sessionId: string, turn: SessionTurn): void {
    turn.timer = undefined;
    if (turn.answered || this.#closed) return;
    turn.answered = true; // ended here: what the agent sends from now on is late
    turn.endedLocally = true;
    this.#report({
      kind: "cancel_ignored",
      sessionId,
      turn: turn.index,
      deadlineMs: this.#deadlineMs,
      message:
        `the agent did not end the turn within ${this.#deadlineMs} ms of the cancel (the protocol says it MUST ` +
        `answer "cancelled"); the turn was ended here.`,
    });
    turn.endLocally?.();
    this.#options.onCancelIgnored?.(sessionId);
  }

  #finish(turn: SessionTurn): void {
    turn.answered = true;
    turn.endLocally = undefined;
    if (turn.timer !== undefined) clearTimeout(turn.timer);
    turn.timer = undefined;
  }

  #report(violation: TurnViolation): void {
    this.#options.onViolation?.(violation);
  }
}
