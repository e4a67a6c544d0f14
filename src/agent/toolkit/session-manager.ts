/**
 * The session manager behind `session/new`, `load`, `resume`, `close`, `delete` and `list` (and the unstable
 * `session/fork`): checks paths, keeps the live sessions of one connection, persists them through a `SessionStore`,
 * replays history on load, and derives the `agentCapabilities` it really implements.
 * Spec points kept: `cwd` and every `additionalDirectories` entry MUST be absolute (else -32602); `session/load`
 * MUST replay the whole conversation as `session/update` notifications before answering; `session/resume` MUST NOT
 * replay; `session/close` MUST cancel ongoing work as `session/cancel` would, then free the session; deleting an
 * unknown session SHOULD succeed silently; `session/list` filters by `cwd`, pages with an opaque cursor, and answers
 * an invalid cursor with an error. `session/fork` (unstable) creates a new session whose history is a copy of the
 * source's as recorded so far (a turn may be running in the source), with the request's own `cwd` and roots (never
 * inherited, as the additional-directories RFD asks); it replays nothing, like `session/new`.
 * @see https://agentclientprotocol.com/protocol/session-setup
 * @see https://agentclientprotocol.com/protocol/session-list
 */
import { RequestError } from "../../jsonrpc/index.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type {
  AgentCapabilities,
  ListSessionsRequest,
  ListSessionsResponse,
  ClientCapabilities,
  LoadSessionRequest,
  NewSessionRequest,
  ResumeSessionRequest,
  SessionInfo,
} from "../../protocol/index.js";
import type { AgentCapabilities as UnstableAgentCapabilities, ForkSessionRequest } from "../../protocol/unstable.js";
import { replayHistory } from "./replay.js";
import { TurnCancelledError } from "./cancelled.js";
import { ToolkitSession, type ClientPort, type SessionOrigin } from "./session.js";
import type { SessionRecord, SessionStore, StoredSession } from "./session-store.js";

/** What `createState` gets: the session, how it became live, and its history (empty for a new session). */
export interface SessionStateContext<S> {
  session: ToolkitSession<S>;
  origin: SessionOrigin;
  history: SessionRecord[];
}

/** Options of `SessionManager`. */
export interface SessionManagerOptions<S> {
  /**
   * Where sessions persist, and so whether `session/load`, `list`, `resume` and `delete` are advertised: only a store
   * can keep what they promise.
   * - Default (or `false`): none. Sessions live as long as the connection; none of the four is advertised. (An agent
   *   that advertised them over memory would fail `acp check agent`, which loads a session in a new process.)
   * - `new FileSessionStore()` from `@acpkit/sdk/node`: on disk, across restarts, as the reference agent does.
   * - A `new MemorySessionStore()` shared by every connection (`toolkitAgentConnector` behind a server): sessions
   *   outlive a connection while the process runs.
   */
  store?: SessionStore | false;
  logger?: Logger;
  /** Builds the author's per-session state; on load and resume it gets the history to rebuild from. */
  createState?: (context: SessionStateContext<S>) => S | Promise<S>;
  /** New session ids. Default: `sess_` + a random UUID. */
  newSessionId?: () => string;
  /** Called as a session becomes live, before `createState` (the toolkit attaches settings, commands here). */
  onActivate?: (context: SessionStateContext<S>) => void | Promise<void>;
}

/** True for POSIX absolute paths and Windows drive (`C:\`, `C:/`) or UNC (`\\server\share`) paths. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

function checkPaths(cwd: string, additionalDirectories: readonly string[] | undefined): string[] {
  if (!isAbsolutePath(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  const extra = additionalDirectories ?? [];
  for (const dir of extra) {
    if (!isAbsolutePath(dir))
      throw RequestError.invalidParams(
        { additionalDirectories: extra },
        `additionalDirectories entries must be absolute paths, got "${dir}"`,
      );
  }
  return [...extra];
}

/** The live sessions of one connection, and their persistence. */
export class SessionManager<S = unknown> {
  readonly store: SessionStore | undefined;
  readonly logger: Logger;
  /** The client's capabilities, once `initialize` told them (set by `toolkitAgent`). */
  clientCapabilities: ClientCapabilities | undefined;
  readonly #client: ClientPort;
  readonly #sessions = new Map<string, ToolkitSession<S>>();
  readonly #options: SessionManagerOptions<S>;

  constructor(client: ClientPort, options: SessionManagerOptions<S> = {}) {
    this.#client = client;
    this.#options = options;
    this.store = options.store === false ? undefined : options.store;
    this.logger = options.logger ?? silentLogger;
    client.signal?.addEventListener(
      "abort",
      () => {
        this.cancelAll(new TurnCancelledError("the connection closed"));
        for (const session of this.#sessions.values()) {
          void session.dispose();
          // What was offered is written (or failed and logged) before the store may let another process write it.
          void session.flush().then(() => this.#release(session.sessionId));
        }
      },
      { once: true },
    );
  }

  /**
   * The capabilities this manager implements, for `initialize`: load, list, resume and delete need a store. Fork
   * (unstable) needs a store too, and is listed only when asked for (`{ fork: true }`): only a connection speaking
   * the unstable protocol routes `session/fork`.
   */
  capabilities(): Pick<AgentCapabilities, "loadSession" | "sessionCapabilities">;
  capabilities(options: { fork?: boolean }): Pick<UnstableAgentCapabilities, "loadSession" | "sessionCapabilities">;
  capabilities(
    options: { fork?: boolean } = {},
  ): Pick<UnstableAgentCapabilities, "loadSession" | "sessionCapabilities"> {
    const persisted = this.store !== undefined;
    return {
      loadSession: persisted,
      sessionCapabilities: persisted
        ? {
            list: {},
            resume: {},
            close: {},
            delete: {},
            additionalDirectories: {},
            ...(options.fork === true ? { fork: {} } : {}),
          }
        : { close: {}, additionalDirectories: {} },
    };
  }

  /** A live session, or -32002 (session not found). */
  get(sessionId: string): ToolkitSession<S> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) throw RequestError.sessionNotFound(sessionId);
    return session;
  }

  /** The live sessions. */
  get sessions(): ToolkitSession<S>[] {
    return [...this.#sessions.values()];
  }

  /** `session/new`: checks paths, creates and stores the session. */
  async newSession(params: NewSessionRequest): Promise<ToolkitSession<S>> {
    const additionalDirectories = checkPaths(params.cwd, params.additionalDirectories);
    const sessionId = this.#options.newSessionId?.() ?? `sess_${globalThis.crypto.randomUUID()}`;
    const now = new Date().toISOString();
    const stored: StoredSession = { sessionId, cwd: params.cwd, createdAt: now, updatedAt: now };
    if (additionalDirectories.length > 0) stored.additionalDirectories = additionalDirectories;
    await this.store?.create(stored);
    return this.#activate(stored, additionalDirectories, "new", []);
  }

  /**
   * `session/load`: restores the session, replays its history as `session/update` (see `replay.ts`: chunks too large
   * for the message limit are split, records that cannot be replayed are skipped and reported in `session.replay`).
   */
  async loadSession(params: LoadSessionRequest): Promise<ToolkitSession<S>> {
    const { stored, additionalDirectories } = await this.#restorable(params);
    const history = await this.store!.history(params.sessionId);
    const session = await this.#activate(stored, additionalDirectories, "load", history);
    session.replay = await replayHistory(this.#client, session.sessionId, history, this.logger);
    return session;
  }

  /** `session/resume`: restores the session without replaying its history. */
  async resumeSession(params: ResumeSessionRequest): Promise<ToolkitSession<S>> {
    const { stored, additionalDirectories } = await this.#restorable(params);
    return this.#activate(stored, additionalDirectories, "resume", await this.store!.history(params.sessionId));
  }

  /**
   * `session/fork` (unstable): checks paths as `session/new` does, then stores a new session (the request's `cwd`
   * and roots, the source's title) whose history is a copy of the source's records so far, `update` and `data`
   * alike, so settings and the author's state are rebuilt from it. The source may be live, even mid-turn (what it
   * handed to the store before the fork is copied), or only stored. An unknown source gets -32002. Replays nothing.
   */
  async forkSession(params: ForkSessionRequest): Promise<ToolkitSession<S>> {
    const additionalDirectories = checkPaths(params.cwd, params.additionalDirectories);
    if (this.store === undefined) throw RequestError.sessionNotFound(params.sessionId);
    const source = await this.store.get(params.sessionId);
    if (source === undefined) throw RequestError.sessionNotFound(params.sessionId);
    await this.#sessions.get(params.sessionId)?.recorded();
    const history = await this.store.history(params.sessionId);
    const sessionId = this.#options.newSessionId?.() ?? `sess_${globalThis.crypto.randomUUID()}`;
    const now = new Date().toISOString();
    const stored: StoredSession = { sessionId, cwd: params.cwd, createdAt: now, updatedAt: now };
    if (additionalDirectories.length > 0) stored.additionalDirectories = additionalDirectories;
    if (source.title !== undefined && source.title !== null) stored.title = source.title;
    await this.store.create(stored);
    try {
      await this.store.append(sessionId, history);
    } catch (error) {
      await this.store.delete(sessionId).catch(() => {});
      throw error;
    }
    return this.#activate(stored, additionalDirectories, "fork", history);
  }

  /** `session/close`: cancels the session's turns, waits until they were answered, frees the session. */
  async closeSession(sessionId: string): Promise<void> {
    const session = this.get(sessionId);
    this.#sessions.delete(sessionId);
    session.turns.cancelAll(new TurnCancelledError("the session was closed"));
    await session.turns.idle();
    await session.dispose();
    await session.flush();
    await this.#release(sessionId);
  }

  /** `session/delete`: closes the session if live, then removes it from the store; unknown ids succeed silently. */
  async deleteSession(sessionId: string): Promise<void> {
    if (this.#sessions.has(sessionId)) await this.closeSession(sessionId);
    await this.store?.delete(sessionId);
  }

  /** `session/list`: one page of stored sessions, newest first. */
  async listSessions(params: ListSessionsRequest): Promise<ListSessionsResponse> {
    if (this.store === undefined) return { sessions: [] };
    if (params.cwd !== undefined && params.cwd !== null && !isAbsolutePath(params.cwd)) {
      throw RequestError.invalidParams({ cwd: params.cwd }, `cwd must be an absolute path, got "${params.cwd}"`);
    }
    const query: { cwd?: string; cursor?: string } = {};
    if (params.cwd) query.cwd = params.cwd;
    if (params.cursor) query.cursor = params.cursor;
    const page = await this.store.list(query);
    const response: ListSessionsResponse = { sessions: page.sessions.map(toSessionInfo) };
    if (page.nextCursor !== undefined) response.nextCursor = page.nextCursor;
    return response;
  }

  /**
   * `session/cancel`: cancels the session's running and queued turns (unknown sessions are ignored, as for any
   * notification).
   */
  cancel(sessionId: string): void {
    this.#sessions.get(sessionId)?.turns.cancelAll(new TurnCancelledError("the client sent session/cancel"));
  }

  /** Cancels every turn of every session (the connection closed). */
  cancelAll(reason?: unknown): void {
    for (const session of this.#sessions.values()) session.turns.cancelAll(reason);
  }

  /** Tells the store the session is no longer live here (see `SessionStore.releaseSession`); failures are logged. */
  async #release(sessionId: string): Promise<void> {
    try {
      await this.store?.releaseSession?.(sessionId);
    } catch (error) {
      this.logger.error("the session store could not release a session", {
        sessionId,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async #restorable(
    params: LoadSessionRequest | ResumeSessionRequest,
  ): Promise<{ stored: StoredSession; additionalDirectories: string[] }> {
    const additionalDirectories = checkPaths(params.cwd, params.additionalDirectories);
    if (this.store === undefined) throw RequestError.sessionNotFound(params.sessionId);
    const stored = await this.store.get(params.sessionId);
    if (stored === undefined) throw RequestError.sessionNotFound(params.sessionId);
    if (stored.cwd !== params.cwd) {
      throw RequestError.invalidParams(
        { cwd: params.cwd, sessionCwd: stored.cwd },
        `session ${params.sessionId} belongs to ${stored.cwd}, not ${params.cwd}`,
      );
    }
    if (this.#sessions.has(params.sessionId)) await this.closeSession(params.sessionId);
    const patch = { additionalDirectories };
    await this.store.update(params.sessionId, patch);
    return { stored: { ...stored, ...patch }, additionalDirectories };
  }

  async #activate(
    stored: StoredSession,
    additionalDirectories: string[],
    origin: SessionOrigin,
    history: SessionRecord[],
  ): Promise<ToolkitSession<S>> {
    const session = new ToolkitSession<S>({
      sessionId: stored.sessionId,
      cwd: stored.cwd,
      additionalDirectories,
      title: stored.title ?? null,
      client: this.#client,
      store: this.store,
      logger: this.logger,
      clientCapabilities: () => this.clientCapabilities,
    });
    await this.#options.onActivate?.({ session, origin, history });
    if (this.#options.createState !== undefined)
      session.state = await this.#options.createState({ session, origin, history });
    this.#sessions.set(session.sessionId, session);
    return session;
  }
}

function toSessionInfo(stored: StoredSession): SessionInfo {
  const info: SessionInfo = { sessionId: stored.sessionId, cwd: stored.cwd, updatedAt: stored.updatedAt };
  if (stored.title !== undefined && stored.title !== null) info.title = stored.title;
  if (stored.additionalDirectories !== undefined && stored.additionalDirectories.length > 0)
    info.additionalDirectories = [...stored.additionalDirectories];
  if (stored.meta !== undefined) info._meta = stored.meta;
  return info;
}
