/**
 * The PostgreSQL session store's write path: one statement for a whole batch of appends (many sessions, many
 * records), fenced by each session's lease. In that one statement, the rows of the batch's sessions whose lease
 * this holder still has with the token the append was made under are locked (in id order), their `last_seq` and
 * lease expiry moved on, and only those sessions' records inserted. It commits on its own, so once it returns every
 * record of the fenced-in sessions is durable; the records of a session whose token changed are not written at all.
 *
 * Record numbers (`seq`) are chosen by the lease holder when it accepts an append, in order, and batches are written
 * one after another, so the statement is idempotent: run again after a connection was lost during its commit, it
 * inserts only the records numbered above the session's `last_seq` as it finds it, which are those the first run did
 * not write (none if it committed). A record number written twice would be refused by the primary key, loudly.
 */
import type { PgQueryable } from "../postgres/pg-types.js";
import { RECORDS_TABLE, SESSIONS_TABLE } from "./postgres-session-schema.js";

/** One `append` call: its records as JSON texts, numbered from `firstSeq`, under lease `token`. */
export interface AppendItem {
  readonly sessionId: string;
  readonly token: string;
  readonly firstSeq: number;
  readonly texts: readonly string[];
}

/** `sessionId token`: an append's lease identity. */
export const leaseKey = (sessionId: string, token: string): string => `${sessionId} ${token}`;

const STATEMENT = `
WITH batch AS (
  SELECT * FROM unnest($2::text[], $3::bigint[], $4::bigint[]) AS b(session_id, token, last_seq)
), locked AS (
  SELECT s.session_id, b.token, b.last_seq, s.last_seq AS written_seq
    FROM ${SESSIONS_TABLE} AS s JOIN batch AS b ON s.session_id = b.session_id
   WHERE s.lease_holder = $1 AND s.lease_token = b.token
   ORDER BY s.session_id
     FOR UPDATE OF s
), fence AS (
  UPDATE ${SESSIONS_TABLE} AS s
     SET last_seq = GREATEST(s.last_seq, locked.last_seq),
         lease_expires_at = clock_timestamp() + $9::int * interval '1 millisecond'
    FROM locked
   WHERE s.session_id = locked.session_id
  RETURNING s.session_id, locked.token, locked.written_seq
), written AS (
  INSERT INTO ${RECORDS_TABLE} (session_id, seq, record)
  SELECT r.session_id, r.seq, r.record
    FROM unnest($5::text[], $6::bigint[], $7::bigint[], $8::text[]) AS r(session_id, token, seq, record)
    JOIN fence ON fence.session_id = r.session_id AND fence.token = r.token
   WHERE r.seq > fence.written_seq
)
SELECT session_id, token::text AS token FROM fence`;

/**
 * Writes `items` in one statement; resolves with the lease keys (`leaseKey`) that were fenced in (written). An
 * item whose key is absent wrote nothing: its session's lease changed hands, or the session is gone. Also extends
 * the written sessions' leases to `ttlMs` from now.
 */
export async function writeAppends(
  db: PgQueryable,
  holderId: string,
  items: readonly AppendItem[],
  ttlMs: number,
): Promise<Set<string>> {
  const fence = new Map<string, { sessionId: string; token: string; last: number }>();
  const recordSessions: string[] = [];
  const recordTokens: string[] = [];
  const recordSeqs: number[] = [];
  const recordTexts: string[] = [];
  for (const item of items) {
    const key = leaseKey(item.sessionId, item.token);
    const last = item.firstSeq + item.texts.length - 1;
    const entry = fence.get(key);
    if (entry === undefined) fence.set(key, { sessionId: item.sessionId, token: item.token, last });
    else entry.last = Math.max(entry.last, last);
    item.texts.forEach((text, index) => {
      recordSessions.push(item.sessionId);
      recordTokens.push(item.token);
      recordSeqs.push(item.firstSeq + index);
      recordTexts.push(text);
    });
  }
  const entries = [...fence.values()];
  const { rows } = await db.query<{ session_id: string; token: string }>(STATEMENT, [
    holderId,
    entries.map((entry) => entry.sessionId),
    entries.map((entry) => entry.token),
    entries.map((entry) => entry.last),
    recordSessions,
    recordTokens,
    recordSeqs,
    recordTexts,
    ttlMs,
  ]);
  return new Set(rows.map((row) => leaseKey(row.session_id, row.token)));
}
