/**
 * The other requests of a shared session, each between one client and the agent, under ids of the server's own
 * (several clients' ids would collide on one agent):
 *
 * - a controller's request to the agent (`session/set_mode`, `session/set_config_option`, ...): the answer goes
 *   back to that controller with its own id;
 * - the agent's request to a client (`fs/*`, `terminal/*`, ...): it goes to the controller whose prompt is running
 *   (outside a turn: the session's first controller), never to several; with no controller to ask, or when that
 *   controller leaves before answering, the agent gets an error at once rather than waiting forever.
 */
import { idKey } from "../../http-protocol.js";
import type { Participant } from "./participant.js";
import { cancelRequestText, withId, type SessionCore } from "./session-core.js";

interface ClientCall {
  readonly participant: Participant;
  readonly clientRequestId: unknown;
}

interface AgentCall {
  readonly agentId: unknown;
  readonly agentKey: string;
  readonly participant: Participant;
}

export class RequestRoutes {
  /** Client requests sent to the agent, by the id the agent got. */
  readonly #toAgent = new Map<string, ClientCall>();
  /** Agent requests sent to a client, by the id the client got. */
  readonly #toClient = new Map<string, AgentCall>();

  constructor(private readonly core: SessionCore) {}

  /** Sends a controller's request to the agent. */
  forward(participant: Participant, message: Record<string, unknown>, chars: number): void {
    const id = this.core.nextId();
    this.#toAgent.set(id, { participant, clientRequestId: message.id });
    this.core.host.deliverToAgent({ ...message, id }, chars, this.core.sessionId);
  }

  ownsAgentAnswer(id: string): boolean {
    return this.#toAgent.has(id);
  }

  /** The agent answered a forwarded request: back to its controller, if still attached. */
  agentAnswered(id: string, message: Record<string, unknown>): void {
    const call = this.#toAgent.get(id)!;
    this.#toAgent.delete(id);
    this.core.release(id);
    if (this.core.attached(call.participant)) call.participant.send(withId(message, call.clientRequestId));
  }

  /** An agent request for `target` (undefined: nobody can answer it). */
  route(message: Record<string, unknown>, target: Participant | undefined): void {
    const agentKey = idKey(message.id);
    if (agentKey === undefined) return;
    if (target === undefined) {
      this.#refuse(
        message.id,
        `no controller can answer ${String(message.method)} for session ${this.core.sessionId}: the client whose ` +
          `prompt is running left, or none is attached`,
      );
      return;
    }
    const id = this.core.nextId();
    this.#toClient.set(id, { agentId: message.id, agentKey, participant: target });
    target.send(JSON.stringify({ ...message, id }));
  }

  ownsClientAnswer(id: string): boolean {
    return this.#toClient.has(id);
  }

  /** A client answered an agent request it was sent: to the agent, with the agent's id. */
  clientAnswered(from: Participant, id: string, message: Record<string, unknown>): void {
    const call = this.#toClient.get(id);
    if (call === undefined || call.participant !== from) return;
    this.#toClient.delete(id);
    this.core.release(id);
    const answer = { ...message, id: call.agentId };
    this.core.host.deliverToAgent(answer, 64, this.core.sessionId);
  }

  /** The agent withdrew a request it sent a client: the client is told (its answer still goes back). */
  agentCancelled(agentKey: string): boolean {
    for (const [id, call] of this.#toClient) {
      if (call.agentKey !== agentKey) continue;
      call.participant.send(cancelRequestText(id));
      return true;
    }
    return false;
  }

  /** A participant left: its forwarded requests' answers are dropped; the agent's requests to it fail now. */
  participantLeft(participant: Participant): void {
    for (const [id, call] of this.#toClient) {
      if (call.participant !== participant) continue;
      this.#toClient.delete(id);
      this.core.release(id);
      this.#refuse(call.agentId, `the client asked (${participant.clientId}) left session ${this.core.sessionId}`);
    }
  }

  /** The session ended. */
  clear(): void {
    for (const id of this.#toAgent.keys()) this.core.release(id);
    for (const id of this.#toClient.keys()) this.core.release(id);
    this.#toAgent.clear();
    this.#toClient.clear();
  }

  #refuse(agentId: unknown, reason: string): void {
    const error = { jsonrpc: "2.0", id: agentId, error: { code: -32603, message: `Internal error: ${reason}` } };
    this.core.host.deliverToAgent(error, 128, this.core.sessionId);
  }
}
