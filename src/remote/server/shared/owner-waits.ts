/**
 * On a participant's node, what its local clients wait for from the nodes that run their sessions: the requests they
 * relayed there and that are not answered yet (a prompt, a mode change), and the session's requests to them that
 * they have not answered (a permission request fanned out to a controller, a file read). When a session's node stops
 * (or another node took the session over), nothing of that will come: the client's requests are answered with an
 * error that says so, and the session's requests to it are withdrawn (`$/cancel_request`), so nothing stays open.
 */
import { PROTOCOL_METHODS } from "../../../protocol/index.js";
import { idKey } from "../../http-protocol.js";
import type { ClientEnd } from "./participant.js";
import { errorResponseText } from "./share-protocol.js";

interface Waiting {
  readonly sessionId: string;
  readonly id: unknown;
  readonly method: string;
}

/** The error a client's request gets when the session's node stopped before answering it. */
export function ownerStoppedText(id: unknown, method: string, sessionId: string, node: string, tail: string): string {
  const what = method === "session/prompt" ? "went away during the turn" : "stopped before answering";
  return errorResponseText(
    id,
    -32603,
    `Internal error: the node that ran session ${sessionId} (${node}) ${what} (it stopped or lost its database); ` +
      `${method === "session/prompt" ? "this turn's remaining output is lost; " : ""}${tail}`,
  );
}

export class OwnerWaits {
  /** The client's relayed requests not answered yet, by id key. */
  readonly #relayed = new Map<ClientEnd, Map<string, Waiting>>();
  /** The session's requests to the client not answered yet, by id key. */
  readonly #asked = new Map<ClientEnd, Map<string, Waiting>>();

  /** `client` relayed request `message` about `sessionId`. */
  relayed(client: ClientEnd, sessionId: string, message: Record<string, unknown>): void {
    const key = "id" in message && "method" in message ? idKey(message.id) : undefined;
    if (key !== undefined)
      entries(this.#relayed, client).set(key, { sessionId, id: message.id, method: `${message.method}` });
  }

  /** A message for `client` on `sessionId` (not an update): an answer settles a request, a request is remembered. */
  delivered(client: ClientEnd, sessionId: string | undefined, text: string): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null) return;
    if (typeof message.method !== "string") {
      const key = idKey(message.id);
      if (key !== undefined) this.#relayed.get(client)?.delete(key);
      return;
    }
    if (message.method === PROTOCOL_METHODS.cancel_request) {
      const key = idKey((message.params as { requestId?: unknown } | undefined)?.requestId);
      if (key !== undefined) this.#asked.get(client)?.delete(key);
      return;
    }
    const key = "id" in message ? idKey(message.id) : undefined;
    if (key !== undefined && sessionId !== undefined)
      entries(this.#asked, client).set(key, { sessionId, id: message.id, method: message.method });
  }

  /** `client` answered a request of a session (`id`). */
  answered(client: ClientEnd, id: unknown): void {
    const key = idKey(id);
    if (key !== undefined) this.#asked.get(client)?.delete(key);
  }

  /**
   * The node that ran `sessionId` for `client` (`node`) will answer nothing more: its requests are answered with an
   * error (ending with `tail`), the session's requests to it withdrawn.
   */
  settle(client: ClientEnd, sessionId: string, node: string, tail: string): void {
    for (const [key, waiting] of [...(this.#relayed.get(client) ?? [])]) {
      if (waiting.sessionId !== sessionId) continue;
      this.#relayed.get(client)!.delete(key);
      client.deliverToClient(ownerStoppedText(waiting.id, waiting.method, sessionId, node, tail), sessionId);
    }
    for (const [key, waiting] of [...(this.#asked.get(client) ?? [])]) {
      if (waiting.sessionId !== sessionId) continue;
      this.#asked.get(client)!.delete(key);
      const cancel = { jsonrpc: "2.0", method: PROTOCOL_METHODS.cancel_request, params: { requestId: waiting.id } };
      client.deliverToClient(JSON.stringify(cancel), sessionId);
    }
  }

  /** `client` left `sessionId` (or `undefined`: every session): nothing of it is waited for any more. */
  forget(client: ClientEnd, sessionId?: string): void {
    for (const map of [this.#relayed, this.#asked]) {
      const waiting = map.get(client);
      if (waiting === undefined) continue;
      if (sessionId !== undefined)
        for (const [key, entry] of [...waiting]) if (entry.sessionId === sessionId) waiting.delete(key);
      if (sessionId === undefined || waiting.size === 0) map.delete(client);
    }
  }
}

function entries(map: Map<ClientEnd, Map<string, Waiting>>, client: ClientEnd): Map<string, Waiting> {
  let found = map.get(client);
  if (found === undefined) map.set(client, (found = new Map()));
  return found;
}
