/**
 * Routes one protocol v2 connection's `session/update` notifications to the active sessions of their session id.
 * An idle `state_update` becomes a `stop` message (a snapshot of idle foreground work, not a per-prompt completion);
 * everything else a `session_update`.
 *
 * Updates the agent sends for a session before its `session/new` response arrives are kept while a `session/new`
 * started through a builder is in flight, and handed to the session that claims the id (the v1 router's contract).
 */
import type { AcpConnection } from "../../acp/acp-connection.js";
import { SessionUpdate, StateUpdate, type IdleStateUpdate, type UpdateSessionNotification } from "../../protocol/v2.js";
import type { AsyncQueue } from "../async-queue.js";

/** What a v2 `ActiveSession` yields. */
export type ActiveSessionMessage =
  | {
      kind: "session_update";
      /** The whole notification. */
      notification: UpdateSessionNotification;
      /** `notification.update`. */
      update: SessionUpdate;
    }
  | {
      /** An idle foreground snapshot: not necessarily a new completion. */
      kind: "stop";
      notification: UpdateSessionNotification;
      update: SessionUpdate;
      /** The idle state's stop reason, when it gave one. */
      stopReason: IdleStateUpdate["stopReason"];
    };

/** Updates kept for sessions whose `session/new` response has not arrived yet, at most. */
const MAX_EARLY_UPDATES = 10_000;

/** The message an update becomes. */
export function sessionMessage(notification: UpdateSessionNotification): ActiveSessionMessage {
  const update = notification.update;
  if (SessionUpdate.isStateUpdate(update) && StateUpdate.isIdle(update)) {
    return { kind: "stop", notification, update, stopReason: (update as IdleStateUpdate).stopReason };
  }
  return { kind: "session_update", notification, update };
}

/** A listener of one session: sees each message as it arrives (before it is read), then queues it. */
export interface SessionListener {
  readonly queue: AsyncQueue<ActiveSessionMessage>;
  /** Applies what the session tracks (config options, background work, cancellable entities) on arrival. */
  observe(message: ActiveSessionMessage): void;
}

/** An update kept for a session not attached yet, with its place among all routed updates. */
type EarlyMessage = { readonly message: ActiveSessionMessage; readonly position: number };

export class V2SessionRouter {
  private readonly sessions = new Map<string, Set<SessionListener>>();
  private readonly early = new Map<string, EarlyMessage[]>();
  private earlyCount = 0;
  private startsInFlight = 0;
  private routed = 0;

  constructor(readonly connection: AcpConnection) {}

  /** How many updates were routed so far: read it when a response arrives to place the response among them. */
  get position(): number {
    return this.routed;
  }

  /** Delivers one notification to the listeners of its session (or keeps it while a `session/new` is in flight). */
  route(notification: UpdateSessionNotification): void {
    const position = this.routed++;
    const message = sessionMessage(notification);
    const listeners = this.sessions.get(notification.sessionId);
    if (listeners !== undefined) {
      for (const listener of listeners) {
        listener.observe(message);
        listener.queue.push(message);
      }
      return;
    }
    if (this.startsInFlight === 0) return;
    if (this.earlyCount >= MAX_EARLY_UPDATES) {
      this.connection.logger.warn("dropped a session/update for an unknown session: too many are waiting", { sessionId: notification.sessionId });
      return;
    }
    const kept = this.early.get(notification.sessionId);
    if (kept === undefined) this.early.set(notification.sessionId, [{ message, position }]);
    else kept.push({ message, position });
    this.earlyCount++;
  }

  /** Marks a `session/new` in flight; call the returned function when it settled and its session (if any) attached. */
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

  /**
   * Routes `sessionId`'s updates to `listener`, starting with those kept for it; returns the function that stops it.
   * `atResponse` runs among the kept ones where the `session/new` response arrived (`responsePosition`, the
   * `position` then), so that what the response carries takes its place between older and newer updates.
   */
  attach(sessionId: string, listener: SessionListener, responsePosition = Number.POSITIVE_INFINITY, atResponse?: () => void): () => void {
    const kept = this.early.get(sessionId) ?? [];
    this.early.delete(sessionId);
    this.earlyCount -= kept.length;
    let responded = false;
    for (const { message, position } of kept) {
      if (!responded && position >= responsePosition) {
        responded = true;
        atResponse?.();
      }
      listener.observe(message);
      listener.queue.push(message);
    }
    if (!responded) atResponse?.();
    let listeners = this.sessions.get(sessionId);
    if (listeners === undefined) this.sessions.set(sessionId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.sessions.get(sessionId) === listeners) this.sessions.delete(sessionId);
    };
  }
}
