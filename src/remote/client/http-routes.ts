/**
 * The routing decisions of the Streamable HTTP client, kept apart from any I/O so they can be tested alone:
 * which session a POST belongs to, which requests wait on which stream, and which of them can no longer be
 * answered when a stream ends.
 *
 * The RFD's routing: requests and notifications whose params carry a `sessionId` are POSTed with
 * `Acp-Session-Id`, and their responses come on that session's stream, except `session/load`'s, which comes on
 * the connection stream; an agent request that came on a session stream is answered with that session's header.
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (routing model)
 */
import { isRecord, type AnyMessage, type JsonRpcId } from "../../jsonrpc/messages.js";
import type { RequestError } from "../../jsonrpc/request-error.js";
import { idKey, METHODS, sessionIdOfParams, sessionIdOfResult } from "../http-protocol.js";

/** Methods that reattach a session after it was lost: they clear a session's failure. */
const REATTACH_METHODS: ReadonlySet<string> = new Set([METHODS.session_load, METHODS.session_resume]);

/** What to do with a message that arrived on a stream. */
export interface ArrivalDecision {
  /**
   * Deliver it only after input already received on the other streams: a response on the connection stream to
   * a session-scoped request (`session/load`) follows updates the agent sent before it on the session stream.
   */
  afterPendingInput: boolean;
  /** A session this message made known (a `session/new` or `session/fork` result): open its stream now. */
  newSession: string | undefined;
}

/** The routing state of one Streamable HTTP connection. */
export class HttpRoutes {
  /** Outgoing session-scoped requests without a response yet: id key -> the id and its session. */
  readonly #pending = new Map<string, { id: JsonRpcId; sessionId: string }>();
  /** Agent requests that came on a session stream, not answered yet: id key -> session. */
  readonly #incoming = new Map<string, string>();
  /** Sessions whose stream the server refused with 409, until they are reattached. */
  readonly #failed = new Map<string, RequestError>();

  /** The session an outgoing message is POSTed for, if any. */
  sessionOf(message: AnyMessage): string | undefined {
    if ("method" in message) return sessionIdOfParams(message.params);
    const key = idKey(message.id);
    return key === undefined ? undefined : this.#incoming.get(key);
  }

  /** Why messages of `sessionId` cannot be sent now (a 409 not yet cleared by a reattach), if they cannot. */
  failureOf(message: AnyMessage, sessionId: string): RequestError | undefined {
    if ("method" in message && REATTACH_METHODS.has(message.method)) {
      this.#failed.delete(sessionId);
      return undefined;
    }
    return this.#failed.get(sessionId);
  }

  /** An outgoing message is about to be POSTed for `sessionId`: a request now waits on that session. */
  sending(message: AnyMessage, sessionId: string | undefined): void {
    if (sessionId === undefined || !("method" in message) || !("id" in message)) return;
    const key = idKey(message.id);
    if (key !== undefined) this.#pending.set(key, { id: message.id, sessionId });
  }

  /** The server accepted a POST: a response to an agent request no longer needs its route. */
  accepted(message: AnyMessage): void {
    if ("method" in message || !("id" in message)) return;
    const key = idKey(message.id);
    if (key !== undefined) this.#incoming.delete(key);
  }

  /**
   * The server refused a POST (or it never got there). For a request, returns whether someone still waits for
   * its response (a session request's response may have arrived meanwhile), and stops tracking it.
   */
  refused(message: AnyMessage): boolean {
    if (!("id" in message)) return false;
    const key = idKey(message.id);
    if (key === undefined) return false;
    if (!("method" in message)) {
      this.#incoming.delete(key);
      return false;
    }
    if (sessionIdOfParams(message.params) === undefined) return true;
    return this.#pending.delete(key);
  }

  /** A message arrived on the stream of `streamSession` (undefined: the connection stream). */
  arrived(value: unknown, streamSession: string | undefined): ArrivalDecision {
    const decision: ArrivalDecision = { afterPendingInput: false, newSession: undefined };
    if (!isRecord(value) || !("id" in value)) return decision;
    const key = idKey(value.id);
    if (key === undefined) return decision;
    if (typeof value.method === "string") {
      if (streamSession !== undefined) this.#incoming.set(key, streamSession);
      return decision;
    }
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      this.#pending.delete(key);
      decision.afterPendingInput = streamSession === undefined;
    }
    decision.newSession = sessionIdOfResult(value.result);
    return decision;
  }

  /** A session's stream ended: the ids of its requests whose responses can no longer arrive (forgotten now). */
  streamEnded(sessionId: string): JsonRpcId[] {
    const lost: JsonRpcId[] = [];
    for (const [key, pending] of this.#pending) {
      if (pending.sessionId !== sessionId) continue;
      this.#pending.delete(key);
      lost.push(pending.id);
    }
    return lost;
  }

  /** The server refused the session's stream (409): its waiting requests are lost until it is reattached. */
  failSession(sessionId: string, error: RequestError): JsonRpcId[] {
    this.#failed.set(sessionId, error);
    return this.streamEnded(sessionId);
  }
}
