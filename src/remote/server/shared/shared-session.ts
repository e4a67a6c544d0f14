/**
 * One live session shared by several client connections: the agent's output for it fans out to every participant
 * (`session/update`s numbered, and kept for late joiners), client messages are checked against the sender's role and
 * go through the prompt queue, the permission fan-out or a request route; attach and detach as the RFD describes.
 *
 * Spec: https://github.com/agentclientprotocol/agent-client-protocol/pull/533
 */
import { CLIENT_METHODS } from "../../../protocol/index.js";
import { isRecord } from "../../../jsonrpc/messages.js";
import { METHODS } from "../../http-protocol.js";
import type { AgentEnd, ClientEnd } from "./participant.js";
import { Participant } from "./participant.js";
import { PermissionFanout } from "./permission-fanout.js";
import { PromptQueue, type QueueSnapshot } from "./prompt-queue.js";
import { RequestRoutes } from "./request-routes.js";
import type { SessionCore } from "./session-core.js";
import { numberedUpdate, SessionHistory } from "./session-history.js";
import {
  ERROR_ALREADY_ATTACHED,
  ERROR_NOT_ALLOWED,
  errorResponseText,
  NOTIFICATION_REFUSED,
  notificationText,
  PARTICIPANTS_CHANGED,
  QUEUE_CHANGED,
  resultResponseText,
  SESSION_ATTACH,
  SESSION_DETACH,
  SESSION_ENDED,
  type AttachRequest,
  type ParticipantInfo,
  type ParticipantRole,
} from "./share-protocol.js";

/** What a session gets from its hub. */
export interface SessionServices {
  nextId(session: SharedSession): string;
  release(id: string): void;
  /** Someone left, or the session's agent went quiet: the hub decides whether the agent lives on. */
  participantsChanged(session: SharedSession): void;
  /** `participant` is no longer attached (detached, or its connection went away). */
  participantLeft(session: SharedSession, participant: Participant): void;
}

/** Methods an observer may send (everything else session-scoped is refused). */
const OBSERVER_METHODS: ReadonlySet<string> = new Set([SESSION_ATTACH, SESSION_DETACH]);

export class SharedSession implements SessionCore {
  readonly history: SessionHistory;
  readonly createdAt = Date.now();
  readonly #participants = new Map<ClientEnd, Participant>();
  readonly #permissions: PermissionFanout;
  readonly #queue: PromptQueue;
  readonly #routes: RequestRoutes;
  #clientCount = 0;

  constructor(
    readonly sessionId: string,
    readonly host: AgentEnd,
    private readonly services: SessionServices,
    maxHistoryChars: number,
  ) {
    this.history = new SessionHistory(maxHistoryChars);
    this.#permissions = new PermissionFanout(this);
    this.#queue = new PromptQueue(this, () => this.#broadcast(QUEUE_CHANGED, { sessionId, ...this.queue }));
    this.#routes = new RequestRoutes(this);
  }

  // SessionCore

  controllers(): Participant[] {
    return [...this.#participants.values()].filter((participant) => participant.isController);
  }

  observers(): Participant[] {
    return [...this.#participants.values()].filter((participant) => !participant.isController);
  }

  attached(participant: Participant): boolean {
    return this.#participants.get(participant.client) === participant;
  }

  emit(update: Record<string, unknown>): void {
    const text = this.history.append({ sessionId: this.sessionId, update });
    for (const participant of this.#participants.values()) if (participant.sharingAware) participant.send(text);
  }

  nextId(): string {
    return this.services.nextId(this);
  }

  release(id: string): void {
    this.services.release(id);
  }

  // What others read.

  get participants(): ParticipantInfo[] {
    return [...this.#participants.values()].map((participant) => participant.info);
  }

  /** The attached participants, in attach order. */
  get members(): Participant[] {
    return [...this.#participants.values()];
  }

  participantOf(client: ClientEnd): Participant | undefined {
    return this.#participants.get(client);
  }

  get queue(): QueueSnapshot {
    return this.#queue.snapshot();
  }

  get turnRunning(): boolean {
    return this.#queue.turnRunning;
  }

  get pendingPermissions(): number {
    return this.#permissions.pendingCount;
  }

  // Attach and detach.

  /**
   * Attaches `client` (answering request `id`): the history its policy asks for as `session/update`s, then the
   * answer, then (`full` or `pending_only`) the permission requests still waiting (asked of a controller, shown to an
   * observer as `_acpkit/session/permission_pending`); all in one step, so the next live update follows the replay
   * with no gap and no repeat.
   */
  attach(client: ClientEnd, id: unknown, request: Extract<AttachRequest, { ok: true }>): void {
    if (this.#participants.has(client)) {
      client.deliverToClient(
        errorResponseText(
          id,
          ERROR_ALREADY_ATTACHED,
          `This connection is already attached to session ${this.sessionId}`,
        ),
        this.sessionId,
      );
      return;
    }
    const name = request.clientInfo?.name ?? client.clientInfo?.name;
    const version = request.clientInfo?.version ?? client.clientInfo?.version;
    const clientId = request.clientId ?? `${client.id.slice(0, 8)}-${++this.#clientCount}`;
    const participant = new Participant(client, this.sessionId, request.role, clientId, name, version, true);
    const replay = request.historyPolicy === "full" ? this.history.replay() : [];
    for (const text of replay) client.deliverToClient(text, this.sessionId);
    const others = this.participants;
    this.#participants.set(client, participant);
    const result = {
      sessionId: this.sessionId,
      clientId,
      role: request.role,
      historyPolicy: request.historyPolicy,
      connectedClients: others,
      _meta: {
        acpkit: {
          replayed: replay.length,
          throughSeq: this.history.lastSeq,
          ...(request.historyPolicy === "full" && this.history.dropped > 0
            ? { truncated: true, firstSeq: this.history.firstKeptSeq }
            : {}),
          queue: this.queue,
          participants: this.participants,
          // An observer's read-only view of the requests waiting (also sent after this answer, as notifications).
          ...(participant.isController || request.historyPolicy === "none"
            ? {}
            : { pendingPermissions: this.#permissions.notices() }),
        },
      },
    };
    client.deliverToClient(resultResponseText(id, result), this.sessionId);
    if (request.historyPolicy !== "none")
      if (participant.isController) this.#permissions.reissue(participant);
      else this.#permissions.showPending(participant);
    this.#broadcast(PARTICIPANTS_CHANGED, { sessionId: this.sessionId, participants: this.participants });
  }

  /** The session's host joins its own session as its first controller (it created or loaded it). */
  attachHost(client: ClientEnd): void {
    const info = client.clientInfo;
    const participant = new Participant(
      client,
      this.sessionId,
      "controller",
      `${client.id.slice(0, 8)}-${++this.#clientCount}`,
      info?.name,
      info?.version,
      client.sharingAware,
    );
    this.#participants.set(client, participant);
  }

  /** Taken over by this node (see `session-restore.ts`): numbering and prompt ids go on after `lastSeq`. */
  resume(lastSeq: number): void {
    this.history.rebase(lastSeq);
    this.#queue.skipIds(lastSeq);
  }

  /**
   * An attachment that goes on as it was (role, client id). Rebuilt on the node that took the session over (see
   * `session-restore.ts`): no replay, its stream continues after the last update it was sent. Or (`afterSeq`) a
   * participant whose own node stopped, back through the node that adopted its connection: the updates after
   * `afterSeq` are replayed, then the permission requests still waiting are asked again (a controller) or shown (an
   * observer); in one step, so no update is missed or shown twice at the seam.
   */
  restore(
    client: ClientEnd,
    record: { role: ParticipantRole; clientId: string; name?: string; version?: string },
    afterSeq?: number,
  ): void {
    if (this.#participants.has(client)) return;
    const { role, clientId, name, version } = record;
    const participant = new Participant(client, this.sessionId, role, clientId, name, version, true);
    const replay = afterSeq === undefined ? [] : this.history.replayAfter(afterSeq);
    for (const text of replay) client.deliverToClient(text, this.sessionId);
    this.#participants.set(client, participant);
    if (afterSeq === undefined) return;
    if (participant.isController) this.#permissions.reissue(participant);
    else this.#permissions.showPending(participant);
    this.participantsChanged();
  }

  /** Everyone is told who is attached (`_acpkit/session/participants`). */
  participantsChanged(): void {
    this.#broadcast(PARTICIPANTS_CHANGED, { sessionId: this.sessionId, participants: this.participants });
  }

  /** `session/detach` from `client`. */
  detach(client: ClientEnd, id: unknown): void {
    const participant = this.#participants.get(client);
    if (participant === undefined) {
      client.deliverToClient(
        errorResponseText(id, ERROR_NOT_ALLOWED, `This connection is not attached to session ${this.sessionId}`),
        this.sessionId,
      );
      return;
    }
    this.#queue.cancelQueued(participant);
    this.#leave(participant, "detached");
    client.deliverToClient(resultResponseText(id, { sessionId: this.sessionId, status: "detached" }), this.sessionId);
  }

  /** A participant's connection ended (or its client went away). */
  clientGone(client: ClientEnd, reason: string): void {
    const participant = this.#participants.get(client);
    if (participant !== undefined) this.#leave(participant, reason);
  }

  // Client messages.

  /** A request or notification of `participant` about this session. */
  fromClient(participant: Participant, message: Record<string, unknown>, chars: number): void {
    const method = message.method as string;
    const isRequest = "id" in message;
    if (!participant.isController && !OBSERVER_METHODS.has(method)) {
      const reason =
        `Not allowed: this client observes session ${this.sessionId} (read-only), so ${method} is refused; ` +
        `attach as a controller (with the server's credentials) to steer the session`;
      if (isRequest) participant.send(errorResponseText(message.id, ERROR_NOT_ALLOWED, reason));
      else
        participant.send(
          notificationText(NOTIFICATION_REFUSED, {
            sessionId: this.sessionId,
            method,
            error: { code: ERROR_NOT_ALLOWED, message: reason },
          }),
        );
      return;
    }
    if (method === METHODS.session_prompt && isRequest) return this.#queue.submit(participant, message, chars);
    if (method === METHODS.session_cancel) {
      this.#queue.cancelQueued(participant);
      this.#permissions.cancelAll(participant);
      if (this.#queue.turnRunning)
        this.host.deliverToAgent({ jsonrpc: "2.0", method, params: { sessionId: this.sessionId } }, 64, this.sessionId);
      if (isRequest) participant.send(resultResponseText(message.id, null));
      return;
    }
    if (isRequest) return this.#routes.forward(participant, message, chars);
    this.host.deliverToAgent(message, chars, this.sessionId);
  }

  /**
   * A participant answered request `id` that this session sent it. An observer is sent no request, so its answers
   * (to a `permissionId`, or to an id it was never sent) are refused, as is a controller's answer to a copy sent to
   * another client; neither is counted.
   */
  clientAnswered(client: ClientEnd, id: string, message: Record<string, unknown>): void {
    const participant = this.#participants.get(client);
    if (participant === undefined) return;
    if (!participant.isController)
      return this.#refuseAnswer(
        participant,
        id,
        `Not allowed: this client observes session ${this.sessionId} (read-only), so its answer to ${id} is not ` +
          `counted; permission requests are answered by the session's controllers (attach as a controller, with ` +
          `the server's credentials, to answer them)`,
      );
    if (this.#permissions.owns(id)) {
      const refused = this.#permissions.answer(participant, id, message);
      if (refused !== undefined) this.#refuseAnswer(participant, id, refused);
    } else if (this.#routes.ownsClientAnswer(id)) this.#routes.clientAnswered(participant, id, message);
  }

  /** Tells `participant` its response to `id` was refused (a response has no reply: a notification says so). */
  #refuseAnswer(participant: Participant, id: string, reason: string): void {
    participant.send(
      notificationText(NOTIFICATION_REFUSED, {
        sessionId: this.sessionId,
        ...(this.#permissions.owns(id) ? { method: CLIENT_METHODS.session_request_permission } : {}),
        requestId: id,
        error: { code: ERROR_NOT_ALLOWED, message: reason },
      }),
    );
  }

  // Agent messages.

  /** A request or notification of the agent about this session. */
  fromAgent(message: Record<string, unknown>, text: string): void {
    const method = message.method as string;
    if (!("id" in message)) {
      if (method === CLIENT_METHODS.session_update && isRecord(message.params)) {
        // Numbered (one JSON.stringify) only when someone who reads the number is there.
        let numbered: string | undefined;
        const seq = this.history.lastSeq + 1;
        for (const participant of this.#participants.values())
          participant.send(participant.sharingAware ? (numbered ??= numberedUpdate(message.params, seq)) : text);
        this.history.keep(numbered ?? text, numbered === undefined);
      } else for (const participant of this.#participants.values()) participant.send(text);
      return;
    }
    if (method === CLIENT_METHODS.session_request_permission) return this.#permissions.open(message);
    this.#routes.route(message, this.#routeTarget());
  }

  /** The agent withdrew request `agentKey` (`$/cancel_request`); true when it was one of this session's. */
  agentCancelled(agentKey: string): boolean {
    return this.#permissions.agentCancelled(agentKey) || this.#routes.agentCancelled(agentKey);
  }

  /** The agent answered request `id` that this session sent it. */
  agentAnswered(id: string, message: Record<string, unknown>): void {
    if (this.#queue.owns(id)) this.#queue.agentAnswered(message);
    else if (this.#routes.ownsAgentAnswer(id)) this.#routes.agentAnswered(id, message);
  }

  /** The agent is gone: everyone is told, nothing waits. */
  end(reason: string): void {
    this.#queue.clear(`the session ended: ${reason}`);
    this.#permissions.clear();
    this.#routes.clear();
    this.#broadcast(SESSION_ENDED, { sessionId: this.sessionId, reason });
    this.#participants.clear();
  }

  /** Sends a notification to every participant (not numbered: a snapshot of state, not history). */
  #broadcast(method: string, params: Record<string, unknown>): void {
    if (this.#participants.size === 0) return;
    const text = notificationText(method, params);
    for (const participant of this.#participants.values()) participant.send(text);
  }

  #routeTarget(): Participant | undefined {
    if (this.#queue.turnRunning) return this.#queue.runningParticipant;
    return this.controllers()[0];
  }

  #leave(participant: Participant, reason: string): void {
    this.#participants.delete(participant.client);
    this.#queue.participantLeft(participant);
    this.#permissions.participantLeft(participant);
    this.#routes.participantLeft(participant);
    this.emit({
      sessionUpdate: "client_disconnected",
      client: participant.who,
      timestamp: new Date().toISOString(),
      _meta: { acpkit: { reason, role: participant.role } },
    });
    this.#broadcast(PARTICIPANTS_CHANGED, { sessionId: this.sessionId, participants: this.participants });
    this.services.participantLeft(this, participant);
    this.services.participantsChanged(this);
  }
}
