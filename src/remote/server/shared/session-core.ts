/**
 * What the parts of a shared session (permission fan-out, prompt queue, routed agent requests) need from it.
 */
import { PROTOCOL_METHODS } from "../../../protocol/index.js";
import type { AgentEnd, Participant } from "./participant.js";
import { answerText } from "./share-protocol.js";

export interface SessionCore {
  readonly sessionId: string;
  readonly host: AgentEnd;
  /** The attached controllers, in attach order. */
  controllers(): Participant[];
  /** The attached observers, in attach order. */
  observers(): Participant[];
  /** Whether `participant` is still attached. */
  attached(participant: Participant): boolean;
  /** Numbers a `session/update` (its `update`) and sends it to every participant. */
  emit(update: Record<string, unknown>): void;
  /** A new id for a request the server sends on this session's behalf (to a client, or to the agent). */
  nextId(): string;
  /** That id is answered (or abandoned). */
  release(id: string): void;
}

/** An agent's answer's text, with the id the client gave its request. */
export function withId(message: Record<string, unknown>, id: unknown): string {
  return answerText(id, "error" in message ? { error: message.error } : { result: message.result });
}

/** `$/cancel_request` for a request the client was sent with `id`. */
export function cancelRequestText(id: string): string {
  return JSON.stringify({ jsonrpc: "2.0", method: PROTOCOL_METHODS.cancel_request, params: { requestId: id } });
}
