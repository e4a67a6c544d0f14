/**
 * The write lease of the PostgreSQL session store: one process at a time writes a session. The lease lives in the
 * session's row: a holder (a random id per store), a fencing token that grows by one each time the lease changes
 * hands, and an expiry on the database's clock. Every write the store makes names the token it holds and is applied
 * only while the row still carries it, in the same statement (with the row locked), so a process that lost its
 * lease writes nothing more, however late its statement arrives. Taking a lease over is an UPDATE of that row, which
 * waits for a write in progress and then sees it; a lease lapses only when its holder stopped renewing it (it died,
 * or could not reach the database) for the lease time.
 *
 * What is never done: compare clocks of different machines (only the database's clock decides expiry), or let a
 * holder whose token changed write again (it must load the session again, which takes a new lease).
 */
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";
import type { PgQueryable } from "../postgres/pg-types.js";
import { RECORDS_TABLE, SESSIONS_TABLE } from "./postgres-session-schema.js";

/** Why a write was refused: another process holds the lease (`session_leased`), or took it over (`lease_lost`). */
export type SessionLeaseReason = "session_leased" | "lease_lost";

/**
 * A session is written by another process. Crosses the wire as -32603 with `data.reason` `session_leased` (this
 * process could not take the lease: another one has the session open) or `lease_lost` (this process held it, and
 * another took it over after it lapsed; this process writes nothing more to the session).
 */
export class SessionLeaseError extends RequestError {
  readonly sessionId: string;
  readonly reason: SessionLeaseReason;
  /** The holder's name (`host pid N`, or the store's `holderName`), when known. */
  readonly holder: string | undefined;

  constructor(reason: SessionLeaseReason, sessionId: string, holder: string | undefined, message: string, extra = {}) {
    super(ErrorCodes.internalError, `Internal error: ${message}`, { sessionId, reason, holder, ...extra });
    this.name = "SessionLeaseError";
    this.sessionId = sessionId;
    this.reason = reason;
    this.holder = holder;
  }
}

/** Who holds leases: one per store. */
export interface LeaseHolder {
  /** Random, unique per store. */
  readonly id: string;
  /** Shown to other processes in their errors: `host pid N` unless the store was given a name. */
  readonly name: string;
}

/** A lease this store holds: the fencing token, and the number the next record gets. */
export interface HeldLease {
  readonly token: string;
  nextSeq: number;
}

/** What one attempt to take a lease found. */
export type AcquireAttempt =
  | { readonly state: "acquired"; readonly lease: HeldLease }
  | { readonly state: "missing" }
  | { readonly state: "held"; readonly holder: string | undefined; readonly remainingMs: number };

/** Nobody holds the lease, or it lapsed (an expiry cleared by hand counts as lapsed). */
const FREE = "(lease_holder IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= clock_timestamp())";

const ttl = (index: number) => `clock_timestamp() + $${index}::int * interval '1 millisecond'`;

/**
 * Takes the lease of `sessionId` if nobody holds it, it lapsed, or this holder has it already (a retried attempt
 * that did commit): the token grows by one. Otherwise says who holds it and for how long at most.
 */
export async function tryAcquire(
  db: PgQueryable,
  holder: LeaseHolder,
  sessionId: string,
  ttlMs: number,
): Promise<AcquireAttempt> {
  for (;;) {
    const { rows } = await db.query<{ token: string; last_seq: string }>(
      `UPDATE ${SESSIONS_TABLE}
          SET lease_token = lease_token + 1, lease_holder = $2, lease_holder_name = $3, lease_expires_at = ${ttl(4)}
        WHERE session_id = $1
          AND (${FREE} OR lease_holder = $2)
        RETURNING lease_token::text AS token, last_seq::text AS last_seq`,
      [sessionId, holder.id, holder.name, ttlMs],
    );
    const row = rows[0];
    if (row !== undefined) return { state: "acquired", lease: { token: row.token, nextSeq: Number(row.last_seq) + 1 } };
    const held = await leaseOf(db, sessionId);
    if (held === undefined) return { state: "missing" };
    // Released or lapsed between the two statements: try again.
    if (held !== "free") return { state: "held", ...held };
  }
}

/**
 * Extends the leases this holder still has (those whose token is unchanged), each to `ttlMs` from now, and returns
 * the ids of those it extended. A lease that lapsed but was not taken over is extended too: its token says nobody
 * else wrote. Rows are locked in id order (as the append statement does), so the two never deadlock.
 */
export async function renewLeases(
  db: PgQueryable,
  holder: LeaseHolder,
  leases: ReadonlyMap<string, HeldLease>,
  ttlMs: number,
): Promise<Set<string>> {
  if (leases.size === 0) return new Set();
  const ids = [...leases.keys()];
  const { rows } = await db.query<{ session_id: string }>(
    `WITH mine AS (
       SELECT s.session_id FROM ${SESSIONS_TABLE} AS s
         JOIN unnest($2::text[], $3::bigint[]) AS h(session_id, token) ON s.session_id = h.session_id
        WHERE s.lease_holder = $1 AND s.lease_token = h.token
        ORDER BY s.session_id
          FOR UPDATE OF s
     )
     UPDATE ${SESSIONS_TABLE} AS s SET lease_expires_at = ${ttl(4)}
       FROM mine WHERE s.session_id = mine.session_id
     RETURNING s.session_id`,
    [holder.id, ids, ids.map((id) => leases.get(id)!.token), ttlMs],
  );
  return new Set(rows.map((row) => row.session_id));
}

/** Gives up leases this holder has (unchanged tokens only); the token stays, so the next holder's is larger. */
export async function releaseLeases(
  db: PgQueryable,
  holder: LeaseHolder,
  leases: ReadonlyMap<string, HeldLease>,
): Promise<void> {
  if (leases.size === 0) return;
  const ids = [...leases.keys()];
  await db.query(
    `WITH mine AS (
       SELECT s.session_id FROM ${SESSIONS_TABLE} AS s
         JOIN unnest($2::text[], $3::bigint[]) AS h(session_id, token) ON s.session_id = h.session_id
        WHERE s.lease_holder = $1 AND s.lease_token = h.token
        ORDER BY s.session_id
          FOR UPDATE OF s
     )
     UPDATE ${SESSIONS_TABLE} AS s SET lease_holder = NULL, lease_holder_name = NULL, lease_expires_at = NULL
       FROM mine WHERE s.session_id = mine.session_id`,
    [holder.id, ids, ids.map((id) => leases.get(id)!.token)],
  );
}

/** What one attempt to delete a session found. */
export type DeleteAttempt =
  | { readonly state: "deleted" | "missing" }
  | { readonly state: "held"; readonly holder: string | undefined; readonly remainingMs: number };

/**
 * Deletes the session and its records unless another process holds its lease (a session is deleted by a process
 * that could write it). Run inside a transaction: the session's row is locked first, so no append can add a record
 * meanwhile, and the records are deleted by a later statement, which sees every record committed before the lock.
 */
export async function tryDelete(tx: PgQueryable, holder: LeaseHolder, sessionId: string): Promise<DeleteAttempt> {
  const { rows } = await tx.query<{ free: boolean }>(
    `SELECT (${FREE} OR lease_holder = $2) AS free
       FROM ${SESSIONS_TABLE} WHERE session_id = $1 FOR UPDATE`,
    [sessionId, holder.id],
  );
  if (rows[0] === undefined) return { state: "missing" };
  if (!rows[0].free) {
    const held = await leaseOf(tx, sessionId);
    if (held !== undefined && held !== "free") return { state: "held", ...held };
  }
  await tx.query(`DELETE FROM ${RECORDS_TABLE} WHERE session_id = $1`, [sessionId]);
  await tx.query(`DELETE FROM ${SESSIONS_TABLE} WHERE session_id = $1`, [sessionId]);
  return { state: "deleted" };
}

/** The lease of a session: absent (no session), free (nobody holds it, or it lapsed), or held. */
async function leaseOf(
  db: PgQueryable,
  sessionId: string,
): Promise<undefined | "free" | { holder: string | undefined; remainingMs: number }> {
  const { rows } = await db.query<{ holder: string | null; name: string | null; remaining_ms: number | null }>(
    `SELECT lease_holder AS holder, lease_holder_name AS name,
            (EXTRACT(EPOCH FROM (lease_expires_at - clock_timestamp())) * 1000)::float8 AS remaining_ms
       FROM ${SESSIONS_TABLE} WHERE session_id = $1`,
    [sessionId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.holder === null || row.remaining_ms === null || row.remaining_ms <= 0) return "free";
  // (Consistent with FREE: the same row, read a moment later.)
  return { holder: row.name ?? undefined, remainingMs: Math.ceil(row.remaining_ms) };
}

/** Who holds the lease of each of `sessionIds` now (absent: no such session). */
export async function currentHolders(
  db: PgQueryable,
  sessionIds: readonly string[],
): Promise<Map<string, string | null>> {
  const { rows } = await db.query<{ session_id: string; name: string | null }>(
    `SELECT session_id, lease_holder_name AS name FROM ${SESSIONS_TABLE} WHERE session_id = ANY($1::text[])`,
    [sessionIds],
  );
  return new Map(rows.map((row) => [row.session_id, row.name]));
}

/** The error for a session whose lease another process holds. */
export function leasedError(
  sessionId: string,
  holder: string | undefined,
  remainingMs: number,
  waitedMs?: number,
): SessionLeaseError {
  const who = holder === undefined ? "another process" : `another process (${holder})`;
  const waited = waitedMs === undefined ? "" : ` (waited ${(waitedMs / 1000).toFixed(1)} s for it)`;
  return new SessionLeaseError(
    "session_leased",
    sessionId,
    holder,
    `session ${sessionId} is open for writing in ${who}${waited}; one process at a time writes a session. Close it ` +
      `there (session/close, or end that process) and try again; if that process has died, its lease lapses within ` +
      `${(remainingMs / 1000).toFixed(1)} s.`,
    { remainingMs },
  );
}

/** The error for every write after this store's lease of a session was taken over. */
export function lostError(sessionId: string, holder: string | null | undefined): SessionLeaseError {
  const who = holder === null || holder === undefined ? "another process" : `another process (${holder})`;
  return new SessionLeaseError(
    "lease_lost",
    sessionId,
    holder ?? undefined,
    `this process's write lease on session ${sessionId} lapsed and ${who} took the session over, so this process ` +
      "writes nothing more to it. Load the session again to continue here once the other process has closed it.",
  );
}
