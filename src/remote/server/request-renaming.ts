/**
 * The ids of the agent's requests to the client, renamed to the ids a backend allocates (`NodeBackend
 * .serverRequestId`): unique within the connection across every agent it ever had, so a client's late answer to a
 * replaced agent's request never reaches the new agent as the answer to another. The client's answer goes back to
 * the agent with the agent's own id; an agent's `$/cancel_request` names the id the client knows.
 */
import { isRecord } from "../../jsonrpc/messages.js";
import { idKey } from "../http-protocol.js";

export class RequestRenaming {
  /** The agent's id of each request the client has yet to answer, by the client's id. */
  readonly #agentIds = new Map<string, unknown>();
  /** The client's id of each, by the agent's. */
  readonly #clientIds = new Map<string, string | number>();

  constructor(private readonly allocate: () => string | number) {}

  /** An agent request (or cancellation) as the client sees it, and its text (the agent's object is left as it is). */
  toClient(message: Record<string, unknown>, text: string): [Record<string, unknown>, string] {
    let renamed: Record<string, unknown> | undefined;
    if ("id" in message) {
      const agentKey = idKey(message.id);
      if (agentKey === undefined) return [message, text];
      const clientId = this.allocate();
      this.#agentIds.set(idKey(clientId)!, message.id);
      this.#clientIds.set(agentKey, clientId);
      renamed = { ...message, id: clientId };
    } else if (message.method === "$/cancel_request" && isRecord(message.params)) {
      const clientId = this.#clientIds.get(idKey(message.params.requestId) ?? "");
      if (clientId !== undefined) renamed = { ...message, params: { ...message.params, requestId: clientId } };
    }
    return renamed === undefined ? [message, text] : [renamed, JSON.stringify(renamed)];
  }

  /** A client's response as the agent expects it: with the agent's id (unchanged for an id not given out here). */
  toAgent(message: Record<string, unknown>, key: string | undefined): Record<string, unknown> {
    if (key === undefined || !this.#agentIds.has(key)) return message;
    const agentId = this.#agentIds.get(key);
    this.#agentIds.delete(key);
    this.#clientIds.delete(idKey(agentId)!);
    return { ...message, id: agentId };
  }

  clear(): void {
    this.#agentIds.clear();
    this.#clientIds.clear();
  }
}
