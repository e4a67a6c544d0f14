/**
 * The part of `pg` (node-postgres) this library uses, typed structurally: the shipped declarations never refer to
 * `pg`'s own types, so a project compiles against acpkit without `@types/pg` (docs/packaging.md). `pg-types.test.ts`
 * checks that the real `pg` module fits these shapes.
 */
import type { ConnectionOptions } from "node:tls";

/** One row as `pg` returns it (column name -> value). */
export type PgRow = Record<string, unknown>;

/** What a query resolves with (the fields acpkit reads). */
export interface PgQueryResult<R extends PgRow = PgRow> {
  readonly rows: R[];
  readonly rowCount: number | null;
  readonly command: string;
}

/** Anything that runs a parameterised query: a pool, a pooled client, a dedicated client. */
export interface PgQueryable {
  query<R extends PgRow = PgRow>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
}

/** A client checked out of a pool: `release()` returns it, `release(error)` destroys it. */
export interface PgPoolClient extends PgQueryable {
  release(destroy?: Error | boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}

/** A `NOTIFY` as delivered by `pg`. */
export interface PgNotification {
  readonly channel: string;
  readonly payload?: string | undefined;
  readonly processId: number;
}

/** A dedicated (unpooled) connection, used for LISTEN. */
export interface PgClient extends PgQueryable {
  connect(): Promise<unknown>;
  end(): Promise<void>;
  on(event: "notification", listener: (message: PgNotification) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
}

/** `pg.Pool`. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error, client: unknown) => void): unknown;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** The connection settings acpkit passes to `pg.Client` / `pg.Pool` (a subset of `pg.ClientConfig`). */
export interface PgClientConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  ssl?: boolean | ConnectionOptions;
  application_name?: string;
  statement_timeout?: number;
  idle_in_transaction_session_timeout?: number;
  connectionTimeoutMillis?: number;
  keepAlive?: boolean;
  keepAliveInitialDelayMillis?: number;
}

/** `pg.PoolConfig`: the client settings plus the pool's own. */
export interface PgPoolConfig extends PgClientConfig {
  max?: number;
  idleTimeoutMillis?: number;
}

/** The `pg` module: its two constructors. */
export interface PgModule {
  readonly Pool: new (config: PgPoolConfig) => PgPool;
  readonly Client: new (config: PgClientConfig) => PgClient;
}
