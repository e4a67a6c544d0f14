/**
 * The PostgreSQL kit the cluster code stands on (Node only; `pg` is an optional peer, loaded on first use): a pool
 * with credentials redacted, versioned migrations serialized by an advisory lock, retry of transient errors, a
 * self-healing LISTEN connection, and a write batcher (group commit).
 */
export {
  createPostgresPool,
  loadPg,
  type IsolationLevel,
  type PostgresOptions,
  type PostgresPool,
  type TransactionOptions,
} from "./pool.js";
export {
  isTransientPostgresError,
  postgresErrorCode,
  PostgresCommitUnknownError,
  PostgresSchemaError,
  PostgresUnavailableError,
  sqlState,
} from "./errors.js";
export { backoffDelay, DEFAULT_RETRY, withPostgresRetry, type RetryContext, type RetryOptions } from "./retry.js";
export {
  migrate,
  MIGRATION_LOCK_KEY,
  registeredMigrations,
  registerMigrations,
  type MigrateOptions,
  type Migration,
  type MigrationReport,
  type MigrationSet,
} from "./migrations.js";
export { listenPostgres, notifyPostgres, type PostgresListener, type PostgresListenerOptions } from "./listener.js";
export { multiRowInsert, WriteBatcher, type Statement, type WriteBatcherOptions } from "./write-batcher.js";
export { describeDatabase, passwordOf, Redactor } from "./redact.js";
export type * from "./pg-types.js";
