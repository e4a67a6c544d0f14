/**
 * Permission requests in a shared session: each `session/request_permission` of the agent goes to every attached
 * controller (observers never get one); the first answer goes to the agent; every participant then gets a
 * `session/update` `permission_resolved` (the outcome and who answered) and every other controller asked gets
 * `$/cancel_request` for its copy, so no request is left open on any client. An error answer (a client that cannot
 * ask its user) abstains; when every controller asked has abstained, the last error goes to the agent. Controllers
 * that attach later with `historyPolicy` `full` or `pending_only` are asked too (the RFD's re-issue).
 */
import { isRecord } from "../../../jsonrpc/messages.js";
import { idKey } from "../../http-protocol.js";
import type { Participant } from "./participant.js";
import { cancelRequestText, type SessionCore } from "./session-core.js";

interface Pending {
  readonly agentId: unknown;
  readonly agentKey: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The controllers asked, with the id each was sent. */
  readonly asked: Map<Participant, string>;
}

export class PermissionFanout {
  readonly #byAgentKey = new Map<string, Pending>();
  readonly #byId = new Map<string, Pending>();

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
    };
    this.#byAgentKey.set(agentKey, pending);
    for (const controller of this.core.controllers()) this.#ask(pending, controller);
  }

  /** Asks a controller that just attached about every request still waiting. */
  reissue(controller: Participant): void {
    for (const pending of this.#byAgentKey.values()) this.#ask(pending, controller);
  }

  /** Whether `id` is one of the copies this fan-out sent. */
  owns(id: string): boolean {
    return this.#byId.has(id);
  }

  /** A controller answered its copy `id`. Late answers (someone else won) are dropped. */
  answer(from: Participant, id: string, message: Record<string, unknown>): void {
    const pending = this.#byId.get(id);
    if (pending === undefined || pending.asked.get(from) !== id) return;
    if ("error" in message) {
      pending.asked.delete(from);
      this.#forget(id);
      if (pending.asked.size === 0) this.#settle(pending, { error: message.error }, from, { outcome: "cancelled" });
      return;
    }
    this.#settle(
      pending,
      { result: message.result },
      from,
      isRecord(message.result) ? message.result.outcome : undefined,
    );
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
    for (const id of this.#byId.keys()) this.core.release(id);
    this.#byId.clear();
    this.#byAgentKey.clear();
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
    });
    for (const [participant, id] of pending.asked) {
      this.#forget(id);
      if (participant !== by) participant.send(cancelRequestText(id));
    }
    pending.asked.clear();
  }
}
