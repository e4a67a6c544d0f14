/**
 * The PostgreSQL store's reads, which need no lease: a session's metadata, its history in order (rows that are not
 * readable records kept in the table, skipped and reported), and `session/list`'s pages by keyset in SQL.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";
import {
  decodeSessionCursor,
  DEFAULT_PAGE_SIZE,
  encodeSessionCursor,
  type SessionListQuery,
  type SessionPage,
  type SessionRecord,
  type StoredSession,
} from "../../agent/toolkit/session-store.js";
import type { PostgresPool } from "../postgres/pool.js";
import { RECORDS_TABLE, SESSIONS_TABLE } from "./postgres-session-schema.js";
import { isKnownRecord } from "./session-log-format.js";

/** A session's metadata as stored (`info`); a -32603 `RequestError` for a row this store did not write. */
export function parseInfo(sessionId: string, text: string, database: string): StoredSession {
  try {
    const info = JSON.parse(text) as StoredSession;
    if (typeof info.sessionId === "string" && typeof info.cwd === "string") return info;
  } catch {
    // below
  }
  throw new RequestError(
    ErrorCodes.internalError,
    `Internal error: the metadata of session ${sessionId} in ${SESSIONS_TABLE}.info at ${database} is not the ` +
      "JSON this store writes (edited by hand?); fix or delete that row.",
    { sessionId, reason: "metadata_unreadable" },
  );
}

/** The session's metadata, or undefined. */
export async function readInfo(pool: PostgresPool, sessionId: string): Promise<StoredSession | undefined> {
  const { rows } = await pool.retry("read session", () =>
    pool.query<{ info: string }>(`SELECT info FROM ${SESSIONS_TABLE} WHERE session_id = $1`, [sessionId]),
  );
  return rows[0] === undefined ? undefined : parseInfo(sessionId, rows[0].info, pool.database);
}

/** Every readable record of the session, in order; the rest reported to `logger` (with their numbers). */
export async function readHistory(pool: PostgresPool, sessionId: string, logger: Logger): Promise<SessionRecord[]> {
  const { rows } = await pool.retry("read session history", () =>
    pool.query<{ seq: string; record: string }>(
      `SELECT seq, record FROM ${RECORDS_TABLE} WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    ),
  );
  const records: SessionRecord[] = [];
  const unknown: string[] = [];
  const unreadable: string[] = [];
  for (const row of rows) {
    let value: unknown;
    try {
      value = JSON.parse(row.record);
    } catch {
      unreadable.push(row.seq);
      continue;
    }
    if (isKnownRecord(value)) records.push(value);
    else unknown.push(row.seq);
  }
  const where = { sessionId, database: pool.database, table: RECORDS_TABLE };
  if (unknown.length > 0)
    logger.warn(
      "session history holds records of an unknown kind (written by a newer version?); kept them, skipped them",
      { ...where, seq: unknown.slice(0, 20), unknown: unknown.length },
    );
  if (unreadable.length > 0)
    logger.error("session history holds rows that are not JSON (edited by hand?); kept them, skipped them", {
      ...where,
      seq: unreadable.slice(0, 20),
      unreadable: unreadable.length,
    });
  return records;
}

/** One page of sessions, newest first, by keyset (see `SessionStore.list`). */
export async function listSessions(pool: PostgresPool, query: SessionListQuery, logger: Logger): Promise<SessionPage> {
  const limit = Math.max(1, query.limit ?? DEFAULT_PAGE_SIZE);
  const after = query.cursor === undefined ? undefined : decodeSessionCursor(query.cursor);
  const where: string[] = [];
  const values: unknown[] = [];
  if (query.cwd !== undefined) {
    values.push(query.cwd);
    where.push(`md5(cwd) = md5($${values.length}) AND cwd = $${values.length}`);
  }
  if (after !== undefined) {
    values.push(after.updatedAt, after.sessionId);
    const [u, s] = [`$${values.length - 1}`, `$${values.length}`];
    where.push(`(updated_at < ${u} OR (updated_at = ${u} AND session_id > ${s}))`);
  }
  values.push(limit + 1);
  const { rows } = await pool.retry("list sessions", () =>
    pool.query<{ session_id: string; updated_at: string; info: string }>(
      `SELECT session_id, updated_at, info FROM ${SESSIONS_TABLE}
        ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`}
        ORDER BY updated_at DESC, session_id ASC LIMIT $${values.length}`,
      values,
    ),
  );
  const sessions: StoredSession[] = [];
  for (const row of rows.slice(0, limit)) {
    try {
      sessions.push(parseInfo(row.session_id, row.info, pool.database));
    } catch (error) {
      logger.error("session store: skipped a session whose metadata cannot be used", {
        sessionId: row.session_id,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const page: SessionPage = { sessions };
  if (rows.length > limit) {
    const last = rows[limit - 1]!;
    page.nextCursor = encodeSessionCursor({ sessionId: last.session_id, updatedAt: last.updated_at });
  }
  return page;
}
