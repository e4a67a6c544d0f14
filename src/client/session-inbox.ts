/**
 * `SessionInbox`: what both protocol versions' active-session feeds share: one connection's session messages
 * delivered to the listeners of their session id, in arrival order.
 *
 * Contracts:
 * - Messages for a session id nobody listens to are kept while a `session/new` (or another start) is in flight (an
 *   agent may stream updates before its response) and handed to the listener that claims the id; they are dropped
 *   once no start is in flight, or past `MAX_EARLY_UPDATES` (with a warning).
 * - Every message has a position among all routed ones; a listener attaching with the position at which its
 *   response arrived gets `atResponse` run exactly there among the kept messages, so what the response carries
 *   takes its place between older and newer updates.
 */
import type { Logger } from "../jsonrpc/index.js";

/** Messages kept for sessions whose start has not been answered yet, at most. */
export const MAX_EARLY_UPDATES = 10_000;

type Early<M> = { readonly message: M; readonly position: number };

export class SessionInbox<M> {
  private readonly sessions = new Map<string, Set<(message: M) => void>>();
  private readonly early = new Map<string, Early<M>[]>();
  private earlyCount = 0;
  private startsInFlight = 0;
  private routed = 0;

  constructor(private readonly logger: Logger) {}

  /** How many messages were routed so far: read it when a response arrives to place the response among them. */
  get position(): number {
    return this.routed;
  }

  /** Delivers one message to the listeners of `sessionId` (or keeps it while a start is in flight). */
  route(sessionId: string, message: M): void {
    const position = this.routed++;
    const listeners = this.sessions.get(sessionId);
    if (listeners !== undefined) {
      for (const listener of listeners) listener(message);
      return;
    }
    if (this.startsInFlight === 0) return;
    if (this.earlyCount >= MAX_EARLY_UPDATES) {
      this.logger.warn("dropped a session/update for an unknown session: too many are waiting", { sessionId });
      return;
    }
    const kept = this.early.get(sessionId);
    if (kept === undefined) this.early.set(sessionId, [{ message, position }]);
    else kept.push({ message, position });
    this.earlyCount++;
  }

  /** Marks a start in flight; call the returned function (once is enough) when it settled and its listener attached. */
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
   * Routes `sessionId`'s messages to `listener`, starting with those kept for it (with `atResponse` run at
   * `responsePosition` among them, or after them); returns the function that stops it.
   */
  attach(
    sessionId: string,
    listener: (message: M) => void,
    responsePosition = Number.POSITIVE_INFINITY,
    atResponse?: () => void,
  ): () => void {
    const kept = this.early.get(sessionId) ?? [];
    this.early.delete(sessionId);
    this.earlyCount -= kept.length;
    let responded = false;
    for (const { message, position } of kept) {
      if (!responded && position >= responsePosition) {
        responded = true;
        atResponse?.();
      }
      listener(message);
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
