/**
 * The session store contract: what the toolkit's session manager needs to persist sessions so that `session/load`,
 * `session/resume` and `session/list` work across restarts. Browser-safe; an in-memory implementation sits beside
 * it (`MemorySessionStore`), the embedded on-disk one in `@acpkit/sdk/node` (`FileSessionStore`), and a server
 * deployment can plug in its own.
 * @see https://agentclientprotocol.com/protocol/session-setup#loading-sessions
 * @see https://agentclientprotocol.com/protocol/session-list
 */
import { RequestError } from "../../jsonrpc/index.js";
import type { SessionUpdate } from "../../protocol/index.js";

/** What a store keeps about one session besides its history (the `SessionInfo` of `session/list`, plus bookkeeping). */
export interface StoredSession {
  sessionId: string;
  /** Absolute working directory; immutable after creation. */
  cwd: string;
  /** The additional workspace roots of the last `session/new`, `load` or `resume`. */
  additionalDirectories?: string[];
  title?: string | null;
  /** ISO 8601 time of creation. */
  createdAt: string;
  /** ISO 8601 time of the last activity; `session/list` orders by it, newest first. */
  updatedAt: string;
  /** Agent-specific metadata, returned as `SessionInfo._meta`. */
  meta?: Record<string, unknown>;
}

/** The fields `SessionStore.update` may change. */
export type SessionMetadataPatch = Partial<
  Pick<StoredSession, "title" | "updatedAt" | "additionalDirectories" | "meta">
>;

/**
 * One entry of a session's history, in order. `update` records are the `session/update` notifications the client
 * saw (replayed verbatim by `session/load`); `data` records are the agent's own (e.g. model context), never sent.
 */
export type SessionRecord =
  { kind: "update"; update: SessionUpdate; _meta?: Record<string, unknown> } | { kind: "data"; data: unknown };

/** A `session/list` query: optional absolute `cwd` filter, opaque cursor, page size (the store's default if absent). */
export interface SessionListQuery {
  cwd?: string;
  cursor?: string;
  limit?: number;
}

/** One page of `list`, newest first; `nextCursor` is absent on the last page. */
export interface SessionPage {
  sessions: StoredSession[];
  nextCursor?: string;
}

/**
 * Persists sessions. Contracts every implementation keeps:
 * - `append` is ordered per session and durable once its promise resolves (a crash never loses a resolved append,
 *   never corrupts earlier records); `history` returns every record appended, in order.
 * - `list` orders by `updatedAt` descending then `sessionId`, filters by exact `cwd`, and throws a -32602
 *   `RequestError` for a cursor it did not issue (the spec's SHOULD).
 * - `delete` of an unknown session succeeds silently; `get`/`history` of an unknown session return undefined/[].
 */
export interface SessionStore {
  create(session: StoredSession): Promise<void>;
  get(sessionId: string): Promise<StoredSession | undefined>;
  append(sessionId: string, records: readonly SessionRecord[]): Promise<void>;
  history(sessionId: string): Promise<SessionRecord[]>;
  list(query?: SessionListQuery): Promise<SessionPage>;
  update(sessionId: string, patch: SessionMetadataPatch): Promise<void>;
  delete(sessionId: string): Promise<void>;
  /**
   * The session is no longer live in this process (closed, or its connection ended): a store that lets one process
   * at a time write a session (a lease) lets others have it now, once this process's pending writes are done. A
   * later write takes it again. Never rejects. Optional: stores without leases need nothing.
   */
  releaseSession?(sessionId: string): Promise<void>;
  /** Releases resources (open files, connections). Optional. */
  close?(): Promise<void>;
}

/** The page size stores use when a query names none. */
export const DEFAULT_PAGE_SIZE = 50;

interface CursorKey {
  u: string;
  s: string;
}

/** The `nextCursor` that names `session` as the last of a page (opaque to clients; keyset pagination). */
export function encodeSessionCursor(session: Pick<StoredSession, "updatedAt" | "sessionId">): string {
  const json = JSON.stringify({ u: session.updatedAt, s: session.sessionId } satisfies CursorKey);
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)));
}

/**
 * The last session of the previous page, from a cursor `encodeSessionCursor` made; a -32602 `RequestError` for
 * anything else (the spec's SHOULD for a cursor the agent did not issue).
 */
export function decodeSessionCursor(cursor: string): { updatedAt: string; sessionId: string } {
  const key = decodeCursorKey(cursor);
  return { updatedAt: key.u, sessionId: key.s };
}

function decodeCursorKey(cursor: string): CursorKey {
  try {
    const bytes = Uint8Array.from(atob(cursor), (c) => c.charCodeAt(0));
    const key = JSON.parse(new TextDecoder().decode(bytes)) as Partial<CursorKey>;
    if (typeof key.u === "string" && typeof key.s === "string") return { u: key.u, s: key.s };
  } catch {
    // fall through to the error below
  }
  throw RequestError.invalidParams(
    { cursor },
    "invalid session/list cursor: pass a nextCursor from an earlier response",
  );
}

/** Newest first, then by id: the order every store lists in. */
export function compareSessions(
  a: Pick<StoredSession, "updatedAt" | "sessionId">,
  b: Pick<StoredSession, "updatedAt" | "sessionId">,
): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0;
}

/**
 * Pages a full set of sessions for `list` (keyset pagination: a cursor names the last session of the previous page,
 * so sessions added meanwhile never shift later pages). Shared by the stores that hold every session's metadata.
 */
export function pageSessions(all: Iterable<StoredSession>, query: SessionListQuery = {}): SessionPage {
  const limit = Math.max(1, query.limit ?? DEFAULT_PAGE_SIZE);
  const after = query.cursor === undefined ? undefined : decodeCursorKey(query.cursor);
  const matching = [...all]
    .filter((s) => query.cwd === undefined || s.cwd === query.cwd)
    .filter((s) => after === undefined || compareSessions({ updatedAt: after.u, sessionId: after.s }, s) < 0)
    .sort(compareSessions);
  const sessions = matching.slice(0, limit);
  const page: SessionPage = { sessions };
  if (matching.length > limit) page.nextCursor = encodeSessionCursor(sessions[sessions.length - 1]!);
  return page;
}
