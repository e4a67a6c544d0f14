/**
 * `TranscriptRouter`: one connection's `session/update` notifications, routed to one `Transcript` per session id,
 * tolerant of agents that stream updates before the `session/new` (or `session/load`) response names the session.
 */
import type { SessionNotification } from "../../protocol/index.js";
import { Transcript, type SessionSetup, type TranscriptOptions } from "./transcript.js";

/** Options of `TranscriptRouter`. */
export interface TranscriptRouterOptions {
  /**
   * What to do with updates for a session id no transcript exists for yet:
   * - `"buffer"` (default): keep them until `open(sessionId)` (typically right after the `session/new` response),
   *   which replays them into the new transcript first;
   * - `"create"`: create the transcript on first sight (an inspector that watches every session).
   */
  unknownSessions?: "buffer" | "create";
  /**
   * At most this many updates are buffered across all unknown sessions; later ones are dropped (counted). Default
   * 10,000.
   */
  maxBuffered?: number;
  /** Builds each transcript (default: `new Transcript({ sessionId })`). */
  create?: (sessionId: string) => Transcript;
  /** Called whenever a transcript is created, before buffered updates are replayed into it (attach listeners here). */
  onSession?: (transcript: Transcript, sessionId: string) => void;
}

const DEFAULT_MAX_BUFFERED = 10_000;

/**
 * Routes `session/update` notifications to per-session transcripts.
 *
 * Contracts:
 * - `route` never throws on a well-formed notification: a known session's transcript folds it at once; an unknown
 *   session's update is buffered (or creates the transcript, per `unknownSessions`).
 * - `open(sessionId, setup?)` creates the transcript if needed, replays the buffered updates in arrival order, then
 *   applies `setup` (the response's modes and config options, which the agent built after those updates).
 * - Buffering is bounded (`maxBuffered`); what it drops is counted in `dropped`. `discard` / `close` free buffers.
 *
 * Use: `sessionUpdate: (n) => router.route(n)` in your `Client`, and `router.open(response.sessionId, response)`
 * when `session/new` resolves.
 */
export class TranscriptRouter {
  readonly #options: TranscriptRouterOptions;
  readonly #sessions = new Map<string, Transcript>();
  readonly #buffered = new Map<string, SessionNotification["update"][]>();
  #bufferedCount = 0;
  #dropped = 0;

  constructor(options: TranscriptRouterOptions = {}) {
    this.#options = options;
  }

  /** How many updates are waiting for their session. */
  get buffered(): number {
    return this.#bufferedCount;
  }

  /** How many updates were dropped because the buffer was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Ids of the sessions with a transcript, in creation order. */
  get sessionIds(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Folds one notification into its session's transcript, or buffers it (see the class contract). */
  route(notification: SessionNotification): void {
    const { sessionId, update } = notification;
    const transcript =
      this.#sessions.get(sessionId) ??
      (this.#options.unknownSessions === "create" ? this.#create(sessionId) : undefined);
    if (transcript !== undefined) {
      transcript.apply(update);
      return;
    }
    if (this.#bufferedCount >= (this.#options.maxBuffered ?? DEFAULT_MAX_BUFFERED)) {
      this.#dropped++;
      return;
    }
    const kept = this.#buffered.get(sessionId);
    if (kept === undefined) this.#buffered.set(sessionId, [update]);
    else kept.push(update);
    this.#bufferedCount++;
  }

  /**
   * The transcript of `sessionId`, created if needed; buffered updates are replayed into it, then `setup` applied.
   * Call it when `session/new`, `session/load` or `session/resume` resolves (or earlier: it is idempotent).
   */
  open(sessionId: string, setup?: SessionSetup): Transcript {
    const transcript = this.#sessions.get(sessionId) ?? this.#create(sessionId);
    if (setup !== undefined) transcript.setup(setup);
    return transcript;
  }

  /** The transcript of `sessionId`, if one exists (never creates one). */
  get(sessionId: string): Transcript | undefined {
    return this.#sessions.get(sessionId);
  }

  /** How many updates are buffered for `sessionId`. */
  bufferedFor(sessionId: string): number {
    return this.#buffered.get(sessionId)?.length ?? 0;
  }

  /** Drops the buffered updates of a session that will never be opened (its `session/new` failed). */
  discard(sessionId: string): void {
    const kept = this.#buffered.get(sessionId);
    if (kept === undefined) return;
    this.#buffered.delete(sessionId);
    this.#bufferedCount -= kept.length;
  }

  /** Forgets a session's transcript and buffer (after `session/close` or `session/delete`). */
  forget(sessionId: string): void {
    this.discard(sessionId);
    this.#sessions.delete(sessionId);
  }

  /** Drops every buffered update (the transcripts stay readable). */
  close(): void {
    this.#buffered.clear();
    this.#bufferedCount = 0;
  }

  #create(sessionId: string): Transcript {
    const transcript = this.#options.create?.(sessionId) ?? new Transcript({ sessionId } satisfies TranscriptOptions);
    this.#sessions.set(sessionId, transcript);
    this.#options.onSession?.(transcript, sessionId);
    const kept = this.#buffered.get(sessionId);
    if (kept !== undefined) {
      this.discard(sessionId);
      for (const update of kept) transcript.apply(update);
    }
    return transcript;
  }
}
