import { METHODS } from "../http-protocol.js";
import type { PendingRequest } from "./connection-options.js";
import type { ResolvedLimits } from "./limits.js";
import type { Refusal } from "./server-context.js";

/**
 * The requests in flight on one connection, both ways, by id key (`keyOfId`): the client's requests waiting on the
 * agent's answer (their method and session: the answer's stream, the running prompts, `maxPendingRequests`), and the
 * agent's requests waiting on the client's answer (the session they were sent on, which an HTTP response must name).
 */
export class RequestTracking {
  readonly #toAgent = new Map<string, PendingRequest>();
  readonly #toClient = new Map<string, string | undefined>();

  constructor(private readonly limits: Pick<ResolvedLimits, "maxIdLength" | "maxPendingRequests">) {}

  /** Session ids with a `session/prompt` the agent has not answered yet. */
  runningPrompts(): string[] {
    const sessions = new Set<string>();
    for (const request of this.#toAgent.values())
      if (request.method === METHODS.session_prompt && request.sessionId) sessions.add(request.sessionId);
    return [...sessions];
  }

  /**
   * Tracks a client's request (`key` made of its `id`) in `sessionId`, or returns the refusal: 400 when the id is
   * longer than `maxIdLength`, 429 when `maxPendingRequests` already wait.
   */
  clientRequest(
    id: unknown,
    key: string | undefined,
    method: unknown,
    sessionId: string | undefined,
  ): Refusal | undefined {
    const { maxIdLength, maxPendingRequests } = this.limits;
    if (typeof id === "string" && id.length > maxIdLength)
      return { status: 400, message: `Bad Request: the request id is longer than maxIdLength (${maxIdLength})` };
    if (key !== undefined && typeof method === "string") {
      if (this.#toAgent.size >= maxPendingRequests && !this.#toAgent.has(key)) {
        return {
          status: 429,
          message:
            `Too Many Requests: ${maxPendingRequests} requests are already waiting for the agent's answer ` +
            `(maxPendingRequests); wait for some to finish`,
        };
      }
      this.#toAgent.set(key, { method, sessionId });
    }
    return undefined;
  }

  /** Tracks a request handed to the agent by someone else (a shared session). */
  track(key: string, method: string, sessionId: string | undefined): void {
    this.#toAgent.set(key, { method, sessionId });
  }

  /** The client's request an agent's response answers, no longer tracked; undefined when none waits on `key`. */
  answered(key: string | undefined): PendingRequest | undefined {
    const pending = key === undefined ? undefined : this.#toAgent.get(key);
    if (pending) this.#toAgent.delete(key!);
    return pending;
  }

  /** Tracks an agent's request to the client, sent on `sessionId`'s stream (or the connection's). */
  agentRequest(key: string, sessionId: string | undefined): void {
    this.#toClient.set(key, sessionId);
  }

  /**
   * A client's response to the agent's request `key`, no longer tracked; with `headerSessionId` (HTTP; `null` skips
   * the check) the response must name the session the request came on, or it is refused (400) and still tracked.
   */
  clientResponse(key: string | undefined, headerSessionId: string | undefined | null): Refusal | undefined {
    if (key === undefined || !this.#toClient.has(key)) return undefined;
    const route = this.#toClient.get(key);
    if (headerSessionId !== null && route !== undefined && headerSessionId !== route) {
      const message =
        headerSessionId === undefined
          ? `Missing Acp-Session-Id: this is a response to a request of session "${route}"; send it with that header`
          : `Mismatched Acp-Session-Id: this is a response to a request of session "${route}", not ` +
            `"${headerSessionId}"`;
      return { status: 400, message };
    }
    this.#toClient.delete(key);
    return undefined;
  }

  /** Forgets every request (the connection ended). */
  clear(): void {
    this.#toAgent.clear();
    this.#toClient.clear();
  }
}
