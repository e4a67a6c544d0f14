/**
 * Permission requests in a shared session: each `session/request_permission` of the agent goes to every attached
 * controller (observers never get one); the first answer goes to the agent; every participant then gets a
 * `session/update` `permission_resolved` (the outcome and who answered) and every other controller asked gets
 * `$/cancel_request` for its copy, so no request is left open on any client. An error answer (a client that cannot
 * ask its user) abstains; when every controller asked has abstained, the last error goes to the agent. Controllers
 * that attach later with `historyPolicy` `full` or `pending_only` are asked too (the RFD's re-issue).
 *
 * Observers see the requests read-only (the RFD's revisions 1-4: an observer "can see pending request_permission
 * prompts, but cannot act on them"; how is left open, so acpkit sends a notification): each waiting request comes to
 * them as `_acpkit/session/permission_pending` (the tool call, the options, a `permissionId` that is not a request
 * id), live and, for observers attaching with `full` or `pending_only`, after the attach answer; its
 * `permission_resolved` carries the same `permissionId`. A response from anyone but the controller a copy was sent to
 * is refused (`_acpkit/session/refused`) and never counted.
 */
import { isRecord } from "../../../jsonrpc/messages.js";
import { idKey } from "../../http-protocol.js";
import type { Participant } from "./participant.js";
import { cancelRequestText, type SessionCore } from "./session-core.js";
import { PERMISSION_PENDING, notificationText } from "./share-protocol.js";

interface Pending {
  readonly agentId: unknown;
  readonly agentKey: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The controllers asked, with the id each was sent. */
  readonly asked: Map<Participant, string>;
  /** What observers know it by (one of the hub's ids, so that an answer to it reaches this session and is refused). */
  readonly permissionId: string;
  readonly askedAt: string;
}

export class PermissionFanout {
  readonly #byAgentKey = new Map<string, Pending>();
  readonly #byId = new Map<string, Pending>();
  readonly #byPermissionId = new Map<string, Pending>();

  constructor(private readonly core: SessionCore) {}

  /** Requests waiting for an answer. */
  get pendingCount(): number {
    return this.#byAgentKey.size;
  }

  /** The agent asked: ask every controller. */
  open(message: Record<string, unknown>): void {
    const agentKey = idKey(message.id);
    if (agentKey === undefined) return;
    const pending: Pending = {
      agentId: message.id,
      agentKey,
      method: message.method as string,
      params: isRecord(message.params) ? message.params : {},
      asked: new Map(),
      permissionId: this.core.nextId(),
      askedAt: new Date().toISOString(),
    };
    this.#byAgentKey.set(agentKey, pending);
    this.#byPermissionId.set(pending.permissionId, pending);
    for (const controller of this.core.controllers()) this.#ask(pending, controller);
    for (const observer of this.core.observers()) observer.send(this.#noticeText(pending));
  }

  /** Asks a controller that just attached about every request still waiting. */
  reissue(controller: Participant): void {
    for (const pending of this.#byAgentKey.values()) this.#ask(pending, controller);
  }

  /** The requests waiting, as observers see them (`_acpkit/session/permission_pending` params). */
  notices(): Record<string, unknown>[] {
    return [...this.#byAgentKey.values()].map((pending) => this.#notice(pending));
  }

  /** Shows an observer that just attached every request still waiting (read-only). */
  showPending(observer: Participant): void {
    for (const pending of this.#byAgentKey.values()) observer.send(this.#noticeText(pending));
  }

  /** Whether `id` is one of the copies this fan-out sent, or a waiting request's `permissionId`. */
  owns(id: string): boolean {
    return this.#byId.has(id) || this.#byPermissionId.has(id);
  }

  /**
   * A controller answered its copy `id`. Late answers (someone else won) are dropped. Returns why the answer is
   * refused when `id` was not sent to `from` (it answers another client's copy, or a `permissionId`).
   */
  answer(from: Participant, id: string, message: Record<string, unknown>): string | undefined {
    const pending = this.#byId.get(id) ?? this.#byPermissionId.get(id);
    if (pending === undefined) return undefined;
    if (pending.asked.get(from) !== id) {
      const yours = pending.asked.get(from);
      return (
        `Not counted: ${id} is not a permission request this client was sent` +
        (yours === undefined
          ? ` (only the controllers asked can answer it)`
          : `; answer the session/request_permission it was sent (id ${yours})`)
      );
    }
    if ("error" in message) {
      pending.asked.delete(from);
      this.#forget(id);
      if (pending.asked.size === 0) this.#settle(pending, { error: message.error }, from, { outcome: "cancelled" });
      return undefined;
    }
    this.#settle(
      pending,
      { result: message.result },
      from,
      isRecord(message.result) ? message.result.outcome : undefined,
    );
    return undefined;
  }

  /** The agent withdrew its request (`$/cancel_request`). True when it was one of these. */
  agentCancelled(agentKey: string): boolean {
    const pending = this.#byAgentKey.get(agentKey);
    if (pending === undefined) return false;
    this.#settle(pending, { error: { code: -32800, message: "Request cancelled: the agent withdrew it" } }, undefined, {
      outcome: "cancelled",
    });
    return true;
  }

  /** `session/cancel`: every waiting request is answered `cancelled` on behalf of `by` (as ACP asks the client). */
  cancelAll(by: Participant): void {
    for (const pending of [...this.#byAgentKey.values()])
      this.#settle(pending, { result: { outcome: { outcome: "cancelled" } } }, by, { outcome: "cancelled" });
  }

  /** A controller left: it is no longer waited for (a request nobody is asked waits for the next controller). */
  participantLeft(participant: Participant): void {
    for (const pending of this.#byAgentKey.values()) {
      const id = pending.asked.get(participant);
      if (id === undefined) continue;
      pending.asked.delete(participant);
      this.#forget(id);
    }
  }

  /** The session ended: nothing waits any more. */
  clear(): void {
    for (const id of [...this.#byId.keys(), ...this.#byPermissionId.keys()]) this.core.release(id);
    this.#byId.clear();
    this.#byPermissionId.clear();
    this.#byAgentKey.clear();
  }

  /** An observer's read-only view of a waiting request. */
  #notice(pending: Pending): Record<string, unknown> {
    return {
      sessionId: this.core.sessionId,
      permissionId: pending.permissionId,
      ...(pending.params.toolCall === undefined ? {} : { toolCall: pending.params.toolCall }),
      ...(pending.params.options === undefined ? {} : { options: pending.params.options }),
      askedAt: pending.askedAt,
    };
  }

  #noticeText(pending: Pending): string {
    return notificationText(PERMISSION_PENDING, this.#notice(pending));
  }

  #ask(pending: Pending, controller: Participant): void {
    if (pending.asked.has(controller)) return;
    const id = this.core.nextId();
    pending.asked.set(controller, id);
    this.#byId.set(id, pending);
    controller.send(JSON.stringify({ jsonrpc: "2.0", id, method: pending.method, params: pending.params }));
  }

  #forget(id: string): void {
    this.#byId.delete(id);
    this.core.release(id);
  }

  #settle(
    pending: Pending,
    answer: { result?: unknown; error?: unknown },
    by: Participant | undefined,
    outcome: unknown,
  ): void {
    this.#byAgentKey.delete(pending.agentKey);
    this.#byPermissionId.delete(pending.permissionId);
    this.core.release(pending.permissionId);
    const message = { jsonrpc: "2.0", id: pending.agentId, ...answer };
    this.core.host.deliverToAgent(message, 64, this.core.sessionId);
    const toolCall = isRecord(pending.params.toolCall) ? pending.params.toolCall : {};
    const optionId = isRecord(outcome) && typeof outcome.optionId === "string" ? outcome.optionId : undefined;
    this.core.emit({
      sessionUpdate: "permission_resolved",
      ...(typeof toolCall.toolCallId === "string" ? { toolCallId: toolCall.toolCallId } : {}),
      ...(optionId === undefined ? {} : { chosenOptionId: optionId }),
      ...(outcome === undefined ? {} : { outcome }),
      resolvedBy: by === undefined ? { clientId: "agent" } : by.who,
      _meta: { acpkit: { permissionId: pending.permissionId, resolvedAt: new Date().toISOString() } },
    });
    for (const [participant, id] of pending.asked) {
      this.#forget(id);
      if (participant !== by) participant.send(cancelRequestText(id));
    }
    pending.asked.clear();
  }
}
