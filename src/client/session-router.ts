import type { SendRequestOptions } from "../jsonrpc/index.js";
import type { PromptRequest, PromptResponse, SessionNotification, SessionUpdate, StopReason } from "../protocol/index.js";
import type { AcpConnection } from "../acp/acp-connection.js";
import type { AsyncQueue } from "./async-queue.js";

/**
 * What an `ActiveSession` yields: a `session/update` notification, or the `stop` that ends a prompt turn.
 * Updates of kinds this version does not know (from newer agents) are delivered too, as received.
 */
export type ActiveSessionMessage =
  | {
      kind: "session_update";
      /** The whole notification. */
      notification: SessionNotification;
      /** `notification.update`. */
      update: SessionUpdate;
    }
  | {
      kind: "stop";
      /** The `session/prompt` response. */
      response: PromptResponse;
      /** `response.stopReason`. */
      stopReason: StopReason;
    };

/** How many updates for not-yet-known sessions are kept while `session/new` requests are in flight. */
const MAX_EARLY_UPDATES = 10_000;

/**
 * Routes one connection's `session/update` notifications to the active sessions of their session id.
 *
 * Contracts:
 * - Updates for a session id nobody listens to are kept while a `session/new` started through a builder is in
 *   flight (an agent may stream updates before its response), and handed to the session that claims the id; they
 *   are dropped once no `session/new` is in flight (or past `MAX_EARLY_UPDATES`).
 * - `sendPrompt` reports the exact arrival of the prompt's response (the engine's `onResponse`), so the `stop`
 *   takes its place in the stream: after the updates sent before the response, before those sent after.
 */
export class SessionUpdateRouter {
  private readonly sessions = new Map<string, Set<AsyncQueue<ActiveSessionMessage>>>();
  private readonly early = new Map<string, ActiveSessionMessage[]>();
  private earlyCount = 0;
  private startsInFlight = 0;

  constructor(readonly connection: AcpConnection) {}

  /** Delivers one notification to the sessions listening to its id (or keeps it, see the class contract). */
  route(notification: SessionNotification): void {
    const message: ActiveSessionMessage = { kind: "session_update", notification, update: notification.update };
    const queues = this.sessions.get(notification.sessionId);
    if (queues !== undefined) {
      for (const queue of queues) queue.push(message);
      return;
    }
    if (this.startsInFlight === 0) return;
    if (this.earlyCount >= MAX_EARLY_UPDATES) {
      this.connection.logger.warn("dropped a session/update for an unknown session: too many are waiting", { sessionId: notification.sessionId });
      return;
    }
    const kept = this.early.get(notification.sessionId);
    if (kept === undefined) this.early.set(notification.sessionId, [message]);
    else kept.push(message);
    this.earlyCount++;
  }

  /** Marks a `session/new` in flight; call the returned function (once is enough) when it settled and was attached. */
  beginStart(): () => void {
    this.startsInFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.startsInFlight === 0) {
        this.early.clear();
        this.earlyCount = 0;
      }
    };
  }

  /** Routes `sessionId`'s updates into `queue`, starting with those kept for it; returns the function that stops it. */
  attach(sessionId: string, queue: AsyncQueue<ActiveSessionMessage>): () => void {
    const kept = this.early.get(sessionId);
    if (kept !== undefined) {
      this.early.delete(sessionId);
      this.earlyCount -= kept.length;
      for (const message of kept) queue.push(message);
    }
    let queues = this.sessions.get(sessionId);
    if (queues === undefined) this.sessions.set(sessionId, (queues = new Set()));
    queues.add(queue);
    return () => {
      queues.delete(queue);
      if (queues.size === 0 && this.sessions.get(sessionId) === queues) this.sessions.delete(sessionId);
    };
  }

  /**
   * Sends `session/prompt`. `arrived` is called synchronously when the response (result or error) arrives, before
   * any later message is dispatched, and at most once (the engine's `onResponse`).
   */
  sendPrompt(params: PromptRequest, options: SendRequestOptions | undefined, arrived: () => void): Promise<PromptResponse> {
    return this.connection.request<PromptResponse>("session/prompt", params, { ...options, onResponse: arrived });
  }
}
