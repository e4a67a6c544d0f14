/**
 * A shared session's prompts, one turn at a time: controllers' `session/prompt`s wait in a FIFO queue every
 * participant can see (`_acpkit/session/queue`, the attach result, `acp sessions`); the next one goes to the agent
 * when the running turn ends. Each turn is announced to every participant as `session/update` `prompt_received`
 * (who sent it, what it says) before the agent sees it, and closed with `turn_complete` (its stop reason) once the
 * agent answers; the answer itself then goes to the controller that sent the prompt (if it is still attached: a
 * controller that leaves mid-turn does not stop the turn, nor the queue).
 */
import { isRecord } from "../../../jsonrpc/messages.js";
import type { Participant } from "./participant.js";
import { withId, type SessionCore } from "./session-core.js";
import { errorResponseText, resultResponseText } from "./share-protocol.js";

interface Queued {
  readonly promptId: string;
  readonly participant: Participant;
  readonly clientRequestId: unknown;
  readonly message: Record<string, unknown>;
  readonly chars: number;
}

interface Running extends Queued {
  readonly agentId: string;
}

/** What clients see of the queue. */
export interface QueueSnapshot {
  readonly running: { promptId: string; clientId: string } | null;
  readonly queued: { promptId: string; clientId: string }[];
}

export class PromptQueue {
  #queue: Queued[] = [];
  #running: Running | undefined;
  #count = 0;

  constructor(
    private readonly core: SessionCore,
    private readonly changed: () => void,
  ) {}

  get turnRunning(): boolean {
    return this.#running !== undefined;
  }

  /** The controller whose prompt is running, while it is attached. */
  get runningParticipant(): Participant | undefined {
    const running = this.#running;
    return running !== undefined && this.core.attached(running.participant) ? running.participant : undefined;
  }

  snapshot(): QueueSnapshot {
    const entry = (queued: Queued) => ({ promptId: queued.promptId, clientId: queued.participant.clientId });
    return { running: this.#running === undefined ? null : entry(this.#running), queued: this.#queue.map(entry) };
  }

  /** A controller's `session/prompt` request. */
  submit(participant: Participant, message: Record<string, unknown>, chars: number): void {
    this.#queue.push({
      promptId: `p${++this.#count}`,
      participant,
      clientRequestId: message.id,
      message,
      chars,
    });
    if (!this.#startNext()) this.changed();
  }

  /**
   * The session was taken over by another node after `lastSeq` updates: prompt ids go on past any it had (each
   * prompt had an update of its own, so there were at most that many).
   */
  skipIds(lastSeq: number): void {
    this.#count = Math.max(this.#count, lastSeq);
  }

  /** Whether `agentId` is the id the running turn was sent to the agent with. */
  owns(agentId: string): boolean {
    return this.#running?.agentId === agentId;
  }

  /** The agent answered the running turn. */
  agentAnswered(message: Record<string, unknown>): void {
    const running = this.#running!;
    this.core.release(running.agentId);
    this.#running = undefined;
    const result = isRecord(message.result) ? message.result : undefined;
    const error = isRecord(message.error) ? message.error : undefined;
    this.core.emit({
      sessionUpdate: "turn_complete",
      ...(typeof result?.stopReason === "string" ? { stopReason: result.stopReason } : {}),
      _meta: {
        acpkit: {
          promptId: running.promptId,
          clientId: running.participant.clientId,
          ...(error === undefined ? {} : { error: typeof error.message === "string" ? error.message : "failed" }),
        },
      },
    });
    // After turn_complete: every update of a turn comes before its answer, as ACP asks.
    if (this.core.attached(running.participant)) running.participant.send(withId(message, running.clientRequestId));
    if (!this.#startNext()) this.changed();
  }

  /** Answers `participant`'s queued prompts `cancelled` (they never ran); true when there were some. */
  cancelQueued(participant: Participant): boolean {
    const mine = this.#queue.filter((queued) => queued.participant === participant);
    if (mine.length === 0) return false;
    this.#queue = this.#queue.filter((queued) => queued.participant !== participant);
    for (const queued of mine)
      participant.send(resultResponseText(queued.clientRequestId, { stopReason: "cancelled" }));
    this.changed();
    return true;
  }

  /** A participant left: its queued prompts are dropped (a running one runs on). */
  participantLeft(participant: Participant): void {
    const before = this.#queue.length;
    this.#queue = this.#queue.filter((queued) => queued.participant !== participant);
    if (this.#queue.length !== before) this.changed();
  }

  /** The session ended: every waiting controller is told why. */
  clear(reason: string): void {
    const all = this.#running === undefined ? this.#queue : [this.#running, ...this.#queue];
    if (this.#running !== undefined) this.core.release(this.#running.agentId);
    this.#running = undefined;
    this.#queue = [];
    for (const queued of all)
      if (this.core.attached(queued.participant))
        queued.participant.send(errorResponseText(queued.clientRequestId, -32603, reason));
  }

  #startNext(): boolean {
    if (this.#running !== undefined) return false;
    const next = this.#queue.shift();
    if (next === undefined) return false;
    const agentId = this.core.nextId();
    this.#running = { ...next, agentId };
    const params = isRecord(next.message.params) ? next.message.params : {};
    this.core.emit({
      sessionUpdate: "prompt_received",
      prompt: params.prompt ?? [],
      sentBy: next.participant.who,
      _meta: { acpkit: { promptId: next.promptId } },
    });
    this.changed();
    this.core.host.deliverToAgent({ ...next.message, id: agentId }, next.chars, this.core.sessionId);
    return true;
  }
}
