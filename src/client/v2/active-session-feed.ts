/**
 * Routes one protocol v2 connection's `session/update` notifications to the active sessions of their session id.
 * An idle `state_update` becomes a `stop` message (a snapshot of idle foreground work, not a per-prompt completion);
 * everything else a `session_update`.
 *
 * Updates the agent sends for a session before its `session/new` response arrives are kept while a `session/new`
 * started through a builder is in flight, and handed to the session that claims the id (the v1 feed's contract).
 */
import type { AcpConnection } from "../../acp/acp-connection.js";
import { SessionUpdate, StateUpdate, type IdleStateUpdate, type UpdateSessionNotification } from "../../protocol/v2.js";
import type { AsyncQueue } from "../async-queue.js";
import { SessionInbox } from "../session-inbox.js";

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

/**
 * Routes a v2 connection's updates to its active sessions (through the shared `SessionInbox`, ../session-inbox.ts),
 * each `session/update` as a `session_update` or, for an idle `state_update`, a `stop` message.
 */
export class V2ActiveSessionFeed {
  private readonly inbox: SessionInbox<ActiveSessionMessage>;

  constructor(readonly connection: AcpConnection) {
    this.inbox = new SessionInbox(connection.logger);
  }

  /** How many updates were routed so far: read it when a response arrives to place the response among them. */
  get position(): number {
    return this.inbox.position;
  }

  /** Delivers one notification to the listeners of its session (or keeps it while a `session/new` is in flight). */
  route(notification: UpdateSessionNotification): void {
    this.inbox.route(notification.sessionId, sessionMessage(notification));
  }

  /** Marks a `session/new` in flight; call the returned function when it settled and its session (if any) attached. */
  beginStart(): () => void {
    return this.inbox.beginStart();
  }

  /**
   * Routes `sessionId`'s updates to `listener` (each observed on arrival, then queued), starting with those kept for
   * it; `atResponse` runs among them where the `session/new` response arrived (`responsePosition`).
   */
  attach(
    sessionId: string,
    listener: SessionListener,
    responsePosition = Number.POSITIVE_INFINITY,
    atResponse?: () => void,
  ): () => void {
    return this.inbox.attach(
      sessionId,
      (message) => {
        listener.observe(message);
        listener.queue.push(message);
      },
      responsePosition,
      atResponse,
    );
  }
}
