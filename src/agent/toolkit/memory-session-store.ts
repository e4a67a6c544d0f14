/**
 * An in-memory `SessionStore`: for tests, and for agents whose sessions live as long as the process. Values are
 * copied in and out (`structuredClone`), so callers never share mutable state with the store.
 */
import {
  pageSessions,
  type SessionListQuery,
  type SessionMetadataPatch,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type StoredSession,
} from "./session-store.js";

export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, { info: StoredSession; records: SessionRecord[] }>();

  create(session: StoredSession): Promise<void> {
    if (this.#sessions.has(session.sessionId))
      return Promise.reject(new Error(`session ${session.sessionId} already exists`));
    this.#sessions.set(session.sessionId, { info: structuredClone(session), records: [] });
    return Promise.resolve();
  }

  get(sessionId: string): Promise<StoredSession | undefined> {
    const entry = this.#sessions.get(sessionId);
    return Promise.resolve(entry === undefined ? undefined : structuredClone(entry.info));
  }

  append(sessionId: string, records: readonly SessionRecord[]): Promise<void> {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined) return Promise.reject(new Error(`session ${sessionId} does not exist`));
    for (const record of records) entry.records.push(structuredClone(record));
    return Promise.resolve();
  }

  history(sessionId: string): Promise<SessionRecord[]> {
    return Promise.resolve(structuredClone(this.#sessions.get(sessionId)?.records ?? []));
  }

  list(query?: SessionListQuery): Promise<SessionPage> {
    try {
      return Promise.resolve(
        structuredClone(
          pageSessions(
            [...this.#sessions.values()].map((e) => e.info),
            query,
          ),
        ),
      );
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  update(sessionId: string, patch: SessionMetadataPatch): Promise<void> {
    const entry = this.#sessions.get(sessionId);
    if (entry === undefined) return Promise.reject(new Error(`session ${sessionId} does not exist`));
    Object.assign(entry.info, structuredClone(patch));
    return Promise.resolve();
  }

  delete(sessionId: string): Promise<void> {
    this.#sessions.delete(sessionId);
    return Promise.resolve();
  }
}
