/**
 * What went wrong with the database, and whether trying again can help. `isTransientPostgresError` tells the errors
 * that pass (the server restarting, a connection cut, a serialization failure or deadlock, too many connections)
 * from those that will not (a syntax error, a constraint violation, a wrong password); the retry loop
 * (`retry.ts`) retries only the former, and the errors here say what to do once it gives up.
 */
import { LocalError } from "../../jsonrpc/local-errors.js";

/**
 * SQLSTATEs that pass by themselves. https://www.postgresql.org/docs/15/errcodes-appendix.html
 * Class 08 (connection exception) is taken whole; 57014 (a statement timeout or cancel) and 40003 (statement
 * completion unknown) are deliberately absent: retrying them blindly would hide a slow query or apply a write twice.
 */
const TRANSIENT_SQLSTATES: ReadonlySet<string> = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "53000", // insufficient_resources
  "53200", // out_of_memory
  "53300", // too_many_connections
  "55P03", // lock_not_available (lock_timeout, NOWAIT)
  "57P01", // admin_shutdown (the server is stopping or restarting)
  "57P02", // crash_shutdown (another backend crashed; the server restarts)
  "57P03", // cannot_connect_now (starting up, shutting down, in recovery)
]);

/** Node's socket errors that mean "not reachable right now" (ENOENT only from `connect`: below). */
const TRANSIENT_ERRNO: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
]);

/** `pg`'s own messages for a connection lost or never made (they carry no code). */
const TRANSIENT_MESSAGES: readonly RegExp[] = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout expired$/,
  /^Connection terminated due to connection timeout/,
  // pg-pool: no client of the pool came free within its connection timeout (a busy pool, not a broken database).
  /^timeout exceeded when trying to connect$/,
];

/** The SQLSTATE or Node error code of `error`, if it has one. */
export function postgresErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The SQLSTATE of an error the server sent (pg's DatabaseError: it has a `severity`), else undefined. */
export function sqlState(error: unknown): string | undefined {
  const severity = (error as { severity?: unknown } | null | undefined)?.severity;
  return typeof severity === "string" ? postgresErrorCode(error) : undefined;
}

/**
 * Whether `error` may pass if the same work is tried again shortly: a lost or refused connection, the server
 * shutting down or starting, a serialization failure, a deadlock, too many connections. Everything else (SQL
 * errors, constraint violations, authentication failures, a statement timeout) is permanent. An AggregateError (Node
 * tries each address of `localhost`) is transient when every inner error is. `PostgresCommitUnknownError` is never
 * transient: its transaction may have committed.
 */
export function isTransientPostgresError(error: unknown): boolean {
  if (error instanceof PostgresCommitUnknownError) return false;
  if (error instanceof AggregateError && error.errors.length > 0)
    return error.errors.every((inner) => isTransientPostgresError(inner));
  const state = sqlState(error);
  if (state !== undefined) return state.startsWith("08") || TRANSIENT_SQLSTATES.has(state);
  const code = postgresErrorCode(error);
  if (code !== undefined) {
    if (TRANSIENT_ERRNO.has(code)) return true;
    // A unix socket that is absent while the server restarts.
    if (code === "ENOENT") return (error as { syscall?: unknown }).syscall === "connect";
  }
  const message = error instanceof Error ? error.message : "";
  if (TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // pg wraps a socket error in a connection error whose cause is the socket error.
  const cause = (error as { cause?: unknown } | null | undefined)?.cause;
  return cause !== undefined && cause !== error && isTransientPostgresError(cause);
}

/**
 * The database stayed unreachable (or kept failing with transient errors) until the retry bound was reached. A
 * local error: `cause` is the last error (redacted), `attempts` and `elapsedMs` say how long it was tried.
 */
export class PostgresUnavailableError extends LocalError {
  readonly attempts: number;
  readonly elapsedMs: number;
  readonly operation: string;

  constructor(operation: string, database: string, attempts: number, elapsedMs: number, cause: unknown) {
    const last = cause instanceof Error ? cause.message : String(cause);
    super(
      "database_unavailable",
      `acpkit: ${operation} failed: PostgreSQL at ${database} kept failing with transient errors ` +
        `(${attempts} attempts over ${(elapsedMs / 1000).toFixed(1)} s; last: ${last}). Check that the database is ` +
        "running and reachable from this host, or raise the retry bound (retry.attempts, retry.deadlineMs).",
      { cause },
    );
    this.name = "PostgresUnavailableError";
    this.attempts = attempts;
    this.elapsedMs = elapsedMs;
    this.operation = operation;
  }
}

/**
 * The connection was lost while a transaction was committing: it may or may not have committed, so it is not
 * retried (that could apply it twice). The caller re-reads what it wrote, or marks the transaction idempotent
 * (`transaction(fn, { idempotent: true })`) when running it twice is harmless.
 */
export class PostgresCommitUnknownError extends LocalError {
  constructor(database: string, cause: unknown) {
    super(
      "database_unavailable",
      `acpkit: the connection to PostgreSQL at ${database} was lost during COMMIT: the transaction may or may not ` +
        "have been applied. Read back what it wrote before trying again.",
      { cause },
    );
    this.name = "PostgresCommitUnknownError";
  }
}

/**
 * The database's schema does not fit this code: it was migrated by a newer acpkit (a migration this code does not
 * know is applied), or an applied migration's name differs from this code's migration of the same version.
 */
export class PostgresSchemaError extends LocalError {
  readonly feature: string;

  constructor(feature: string, message: string) {
    super("database_schema", message);
    this.name = "PostgresSchemaError";
    this.feature = feature;
  }
}
