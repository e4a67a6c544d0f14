/**
 * A pool of PostgreSQL connections for acpkit's cluster code: `pg.Pool` (loaded on first use: `pg` is an optional
 * peer) with the settings a server wants (an `application_name` that shows in `pg_stat_activity`, a statement
 * timeout, a connect timeout, TCP keep-alive), errors redacted of credentials, transactions with retry of transient
 * failures, and dedicated clients with the same settings for LISTEN.
 */
import type { ConnectionOptions } from "node:tls";
import { defaultLogger, type Logger } from "../../jsonrpc/logger.js";
import { importOptional, PG_DEPENDENCY } from "../optional-dependency.js";
import { isTransientPostgresError, PostgresCommitUnknownError, sqlState } from "./errors.js";
import type { PgClient, PgModule, PgPoolConfig, PgQueryable, PgQueryResult, PgRow } from "./pg-types.js";
import { describeDatabase, passwordOf, Redactor } from "./redact.js";
import { withPostgresRetry, type RetryOptions } from "./retry.js";

/** Where the database is and how to use it. Give a `connectionString`, separate fields, or both (the string wins). */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database?sslmode=...` or libpq's `key=value` form. */
  readonly connectionString?: string;
  readonly host?: string;
  readonly port?: number;
  readonly user?: string;
  readonly password?: string;
  readonly database?: string;
  /** Passed to `pg` as is (`true`, or `node:tls` options: `{ ca, rejectUnauthorized, ... }`). */
  readonly ssl?: boolean | ConnectionOptions;
  /** Shown in `pg_stat_activity` (default `acpkit`). */
  readonly applicationName?: string;
  /** The server cancels a statement after this long (default 30,000 ms; 0: never). */
  readonly statementTimeoutMs?: number;
  /** The server ends a session idle inside a transaction after this long (default 60,000 ms; 0: never). */
  readonly idleInTransactionTimeoutMs?: number;
  /** Give up a connection attempt after this long (default 10,000 ms). */
  readonly connectTimeoutMs?: number;
  /** Connections in the pool at most (default 10). */
  readonly max?: number;
  /** Close a connection idle in the pool for this long (default 30,000 ms; 0: never). */
  readonly idleTimeoutMs?: number;
  /** The bound of `retry` and of `transaction`'s retries (defaults: `DEFAULT_RETRY`). */
  readonly retry?: RetryOptions;
  /** Diagnostics (connection errors of idle clients, retries). Default: warnings and errors to stderr. */
  readonly logger?: Logger;
  /** The `pg` module to use instead of importing it (a bundler's copy, a test's). */
  readonly pg?: PgModule;
}

/** The transaction isolation levels PostgreSQL offers. */
export type IsolationLevel = "read committed" | "repeatable read" | "serializable";

export interface TransactionOptions {
  /** Default `read committed` (PostgreSQL's default). */
  readonly isolation?: IsolationLevel;
  /** Retry the whole transaction on a transient error (default: the pool's `retry`); `false`: never. */
  readonly retry?: RetryOptions | false;
  /**
   * Running the transaction twice is harmless, so a connection lost during COMMIT is retried too instead of
   * rejecting with `PostgresCommitUnknownError` (default false).
   */
  readonly idempotent?: boolean;
  /** What the transaction does, for error messages (default "transaction"). */
  readonly operation?: string;
}

/** `pg.Pool` wrapped: credentials redacted from every error, transactions, retry. */
export interface PostgresPool extends PgQueryable {
  /** The database for log lines: `postgres://user@host:port/database` (never the password). */
  readonly database: string;
  readonly logger: Logger;
  /** The pool's retry bound (its `retry` option with the defaults). */
  readonly retryOptions: RetryOptions;
  /** One statement on any pooled connection. Errors are redacted; nothing is retried (see `retry`). */
  query<R extends PgRow = PgRow>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
  /** Runs `work` on one pooled connection (e.g. to hold a session-level advisory lock across statements). */
  withClient<T>(work: (client: PgQueryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` inside BEGIN ... COMMIT on one connection (ROLLBACK when it throws). A transient error (a lost
   * connection, a serialization failure, a deadlock) runs the whole transaction again, within the retry bound; a
   * connection lost during COMMIT rejects with `PostgresCommitUnknownError` unless `idempotent`.
   */
  transaction<T>(work: (client: PgQueryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** `withPostgresRetry` with this pool's bound, database name, logger and redaction. */
  retry<T>(operation: string, work: (attempt: number) => Promise<T>, options?: RetryOptions): Promise<T>;
  /** A new, unconnected dedicated client with the pool's settings (for LISTEN): `connect()` it, `end()` it. */
  createClient(): PgClient;
  /** `error` with the credentials masked (in place), for errors from a `createClient()` client. */
  redact<E>(error: E): E;
  /** `text` with the credentials masked. */
  redactText(text: string): string;
  /** Connections open, idle in the pool, and callers waiting for one. */
  stats(): { readonly total: number; readonly idle: number; readonly waiting: number };
  /** Closes every connection; pending queries finish first. */
  end(): Promise<void>;
}

/** Loads `pg` (an optional peer): rejects with `OptionalDependencyMissingError` ("npm install pg@8") without it. */
export async function loadPg(): Promise<PgModule> {
  const module = await importOptional<Partial<PgModule> & { default?: PgModule }>(PG_DEPENDENCY);
  return module.Pool !== undefined && module.Client !== undefined ? (module as PgModule) : module.default!;
}

/** Opens a pool (no connection is made until the first query). Accepts a connection string or the options. */
export async function createPostgresPool(options: PostgresOptions | string): Promise<PostgresPool> {
  const settings: PostgresOptions = typeof options === "string" ? { connectionString: options } : options;
  const pg = settings.pg ?? (await loadPg());
  const config = clientConfig(settings);
  const redactor = new Redactor([
    settings.password,
    settings.connectionString === undefined ? undefined : passwordOf(settings.connectionString),
  ]);
  const database = describeDatabase(settings);
  const logger = settings.logger ?? defaultLogger;
  const retryOptions: RetryOptions = settings.retry ?? {};
  const pool = new pg.Pool({ ...config, max: settings.max ?? 10, idleTimeoutMillis: settings.idleTimeoutMs ?? 30_000 });
  // An idle client whose connection dies (the server restarts) emits on the pool; unhandled, that would end the
  // process. The pool has already dropped that client.
  pool.on("error", (error) => {
    logger.warn(`postgres: an idle connection to ${database} failed: ${redactor.text(error.message)}`);
  });
  const redact = <E>(error: E): E => redactor.error(error);

  /**
   * A pooled client, guarded: a checked-out client whose connection fails between queries emits `error`, which
   * would end the process unheard; here it marks the client broken (its next query fails, and it is destroyed on
   * release instead of going back to the pool).
   */
  const checkout = async () => {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken ??= error;
    };
    client.on("error", onError);
    return {
      client,
      release(error?: unknown) {
        if (error !== undefined && broken === undefined && isConnectionLost(error)) broken = error as Error;
        client.removeListener("error", onError);
        client.release(broken ?? false);
      },
      destroy(error: Error) {
        broken ??= error;
      },
    };
  };

  const withClient = async <T>(work: (client: PgQueryable) => Promise<T>): Promise<T> => {
    const held = await checkout().catch((error: unknown) => {
      throw redact(error);
    });
    let failure: unknown;
    try {
      return await work(held.client);
    } catch (error) {
      failure = error;
      throw redact(error);
    } finally {
      held.release(failure);
    }
  };

  const retry = <T>(operation: string, work: (attempt: number) => Promise<T>, options?: RetryOptions): Promise<T> =>
    withPostgresRetry(work, { operation, database, logger, redact }, { ...retryOptions, ...options });

  const transactionOnce = async <T>(work: (client: PgQueryable) => Promise<T>, options: TransactionOptions) => {
    const held = await checkout();
    const { client } = held;
    let failure: unknown;
    try {
      await client.query(options.isolation === undefined ? "BEGIN" : `BEGIN ISOLATION LEVEL ${isolation(options)}`);
      let result: T;
      try {
        result = await work(client);
      } catch (error) {
        // A ROLLBACK that fails leaves the connection in an unknown state: it is not reused.
        await client.query("ROLLBACK").catch((rollbackError: Error) => held.destroy(rollbackError));
        throw error;
      }
      try {
        await client.query("COMMIT");
      } catch (error) {
        if (!options.idempotent && outcomeUnknown(error)) throw new PostgresCommitUnknownError(database, error);
        throw error;
      }
      return result;
    } catch (error) {
      failure = error instanceof PostgresCommitUnknownError ? error.cause : error;
      throw error;
    } finally {
      held.release(failure);
    }
  };

  return {
    database,
    logger,
    retryOptions,
    query: <R extends PgRow = PgRow>(text: string, values?: unknown[]) =>
      pool.query<R>(text, values).catch((error: unknown) => {
        throw redact(error);
      }),
    withClient,
    transaction: <T>(work: (client: PgQueryable) => Promise<T>, options: TransactionOptions = {}) => {
      const operation = options.operation ?? "transaction";
      if (options.retry === false)
        return transactionOnce(work, options).catch((error: unknown) => {
          throw redact(error);
        });
      return retry(operation, () => transactionOnce(work, options), options.retry);
    },
    retry,
    createClient: () => new pg.Client(config),
    redact,
    redactText: (text) => redactor.text(text),
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    end: () => pool.end(),
  };
}

/** The `pg` client settings from the options (the pool's own settings added by the caller). */
function clientConfig(settings: PostgresOptions): PgPoolConfig {
  const config: PgPoolConfig = {
    application_name: settings.applicationName ?? "acpkit",
    connectionTimeoutMillis: settings.connectTimeoutMs ?? 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const statementTimeout = settings.statementTimeoutMs ?? 30_000;
  if (statementTimeout > 0) config.statement_timeout = statementTimeout;
  const idleInTransaction = settings.idleInTransactionTimeoutMs ?? 60_000;
  if (idleInTransaction > 0) config.idle_in_transaction_session_timeout = idleInTransaction;
  for (const key of ["connectionString", "host", "port", "user", "password", "database", "ssl"] as const)
    if (settings[key] !== undefined) (config as Record<string, unknown>)[key] = settings[key];
  return config;
}

function isolation(options: TransactionOptions): string {
  const level = options.isolation!;
  if (level !== "read committed" && level !== "repeatable read" && level !== "serializable")
    throw new TypeError(`isolation must be "read committed", "repeatable read" or "serializable", not ${level}`);
  return level.toUpperCase();
}

/** The connection itself failed (as opposed to the statement): the client must not go back to the pool. */
function isConnectionLost(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== undefined) return state.startsWith("08") || state.startsWith("57P");
  return isTransientPostgresError(error);
}

/** A COMMIT that failed without a server verdict (the connection went): it may have been applied. */
function outcomeUnknown(error: unknown): boolean {
  return isConnectionLost(error);
}
