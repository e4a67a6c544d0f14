/**
 * Versioned schema migrations, applied at start. Each feature (the cluster's connections/streams/leases, the session
 * store, ...) registers its migrations under its name with `registerMigrations`; `migrate(pool)` applies those not
 * yet applied, in version order, each in its own transaction together with its row in `acpkit_schema_migrations`.
 * Processes starting at once are serialized by a PostgreSQL advisory lock, so each migration runs once. A database
 * migrated by a newer acpkit (a version this code does not know) is refused with `PostgresSchemaError`, before
 * anything is applied.
 */
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { PostgresSchemaError } from "./errors.js";
import type { PgQueryable } from "./pg-types.js";
import type { PostgresPool } from "./pool.js";

/** One step of a feature's schema. */
export interface Migration {
  /** 1, 2, 3, ...: unique within the feature; applied in ascending order. Never renumber a released migration. */
  readonly version: number;
  /** What it does, e.g. `create connections`: recorded, and compared at start (a different name is refused). */
  readonly name: string;
  /** SQL (several statements allowed), or a function run inside the migration's transaction. */
  readonly up: string | ((client: PgQueryable) => Promise<void>);
}

/** A feature's migrations. */
export interface MigrationSet {
  /** A stable name: `cluster`, `sessions`. */
  readonly feature: string;
  readonly migrations: readonly Migration[];
}

/** What `migrate` did. */
export interface MigrationReport {
  /** The migrations applied by this call (empty when another process had already applied everything). */
  readonly applied: readonly { readonly feature: string; readonly version: number; readonly name: string }[];
  /** Each feature's version after the call. */
  readonly versions: Readonly<Record<string, number>>;
}

export interface MigrateOptions {
  /** The sets to apply (default: every registered set). */
  readonly sets?: readonly MigrationSet[];
  /** How long to wait for another process's migrations (default 120,000 ms). */
  readonly lockTimeoutMs?: number;
  /** The bookkeeping table (default `acpkit_schema_migrations`); a plain or schema-qualified identifier. */
  readonly table?: string;
}

/** The advisory lock key that serializes migrations: a fixed 64-bit number ("acpkitmg"). */
export const MIGRATION_LOCK_KEY = 0x6163706b69746d67n;

const registry = new Map<string, MigrationSet>();

/**
 * Registers a feature's migrations, for every later `migrate()` in this process. Registering the same feature again
 * with the same versions and names is a no-op (a module loaded twice); anything else throws.
 */
export function registerMigrations(feature: string, migrations: readonly Migration[]): MigrationSet {
  const set = checkedSet(feature, migrations);
  const existing = registry.get(feature);
  if (existing !== undefined) {
    if (signature(existing) !== signature(set))
      throw new Error(`migrations for feature '${feature}' are already registered with different versions or names`);
    return existing;
  }
  registry.set(feature, set);
  return set;
}

/** The registered sets, in registration order. */
export function registeredMigrations(): readonly MigrationSet[] {
  return [...registry.values()];
}

/**
 * Applies the pending migrations of `options.sets` (default: the registered ones) and returns what it did. Holds the
 * migration advisory lock on one connection throughout; each migration runs in its own transaction (with no
 * statement timeout) together with its bookkeeping row, so a failed migration leaves nothing behind and the next
 * start tries it again. Rejects with `PostgresSchemaError` when the database is ahead of this code.
 */
export async function migrate(pool: PostgresPool, options: MigrateOptions = {}): Promise<MigrationReport> {
  const sets = (options.sets ?? registeredMigrations()).map((set) => checkedSet(set.feature, set.migrations));
  const table = quoteQualified(options.table ?? "acpkit_schema_migrations");
  return pool.retry("migrate", () =>
    pool.withClient(async (client) => {
      await acquire(client, options.lockTimeoutMs ?? 120_000, pool.database);
      try {
        return await migrateLocked(client, sets, table, pool);
      } finally {
        // A lost connection has released the lock already.
        await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]).catch(() => undefined);
      }
    }),
  );
}

async function acquire(client: PgQueryable, timeoutMs: number, database: string): Promise<void> {
  const started = performance.now();
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [
      MIGRATION_LOCK_KEY.toString(),
    ]);
    if (rows[0]?.locked === true) return;
    if (performance.now() - started > timeoutMs)
      throw new Error(
        `acpkit: another process has been migrating PostgreSQL at ${database} for over ${timeoutMs} ms ` +
          `(advisory lock ${MIGRATION_LOCK_KEY}); find it in pg_locks / pg_stat_activity, or raise lockTimeoutMs`,
      );
    await sleep(wait);
  }
}

async function migrateLocked(
  client: PgQueryable,
  sets: readonly MigrationSet[],
  table: string,
  pool: PostgresPool,
): Promise<MigrationReport> {
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${table} (
       feature text NOT NULL,
       version integer NOT NULL,
       name text NOT NULL,
       checksum text NOT NULL,
       applied_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (feature, version)
     )`,
  );
  const { rows } = await client.query<{ feature: string; version: number; name: string; checksum: string }>(
    `SELECT feature, version, name, checksum FROM ${table} WHERE feature = ANY($1::text[])`,
    [sets.map((set) => set.feature)],
  );
  // Check every set before applying anything: a node too old for the database must not change it.
  for (const set of sets) checkApplied(set, rows, pool);
  const applied: { feature: string; version: number; name: string }[] = [];
  const versions: Record<string, number> = {};
  for (const set of sets) {
    const done = new Set(rows.filter((row) => row.feature === set.feature).map((row) => row.version));
    for (const migration of set.migrations) {
      if (done.has(migration.version)) continue;
      await client.query("BEGIN");
      try {
        await client.query("SET LOCAL statement_timeout = 0");
        if (typeof migration.up === "string") await client.query(migration.up);
        else await migration.up(client);
        await client.query(`INSERT INTO ${table} (feature, version, name, checksum) VALUES ($1, $2, $3, $4)`, [
          set.feature,
          migration.version,
          migration.name,
          checksum(migration),
        ]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        const message = error instanceof Error ? error.message : String(error);
        throw Object.assign(error instanceof Error ? error : new Error(message), {
          message: `acpkit: migration ${set.feature} v${migration.version} (${migration.name}) failed: ${message}`,
        });
      }
      applied.push({ feature: set.feature, version: migration.version, name: migration.name });
      pool.logger.info(`postgres: applied migration ${set.feature} v${migration.version} (${migration.name})`);
    }
    versions[set.feature] = Math.max(0, ...set.migrations.map((m) => m.version), ...done);
  }
  return { applied, versions };
}

function checkApplied(
  set: MigrationSet,
  rows: readonly { feature: string; version: number; name: string; checksum: string }[],
  pool: PostgresPool,
): void {
  const known = new Map(set.migrations.map((migration) => [migration.version, migration]));
  const newest = Math.max(0, ...known.keys());
  for (const row of rows) {
    if (row.feature !== set.feature) continue;
    const migration = known.get(row.version);
    if (migration === undefined) {
      if (row.version > newest)
        throw new PostgresSchemaError(
          set.feature,
          `acpkit: PostgreSQL at ${pool.database} has migration ${set.feature} v${row.version} (${row.name}) applied, ` +
            `but this version of acpkit knows ${set.feature} migrations up to v${newest}: the database was migrated ` +
            "by a newer acpkit. Upgrade this node to the version the other nodes run, or point it at another database.",
        );
      throw new PostgresSchemaError(
        set.feature,
        `acpkit: PostgreSQL at ${pool.database} has migration ${set.feature} v${row.version} (${row.name}) applied, ` +
          "which this version of acpkit does not have. Run the acpkit that applied it, or restore the database.",
      );
    }
    if (migration.name !== row.name)
      throw new PostgresSchemaError(
        set.feature,
        `acpkit: PostgreSQL at ${pool.database} has ${set.feature} v${row.version} applied as '${row.name}', but this ` +
          `acpkit's v${row.version} is '${migration.name}': the database was migrated by a different build. ` +
          "Run the build that migrated it, or point this node at another database.",
      );
    if (row.checksum !== checksum(migration))
      pool.logger.warn(
        `postgres: migration ${set.feature} v${row.version} (${row.name}) differs from the one applied ` +
          "(its SQL changed after it was released); the database keeps the applied one",
      );
  }
}

function checkedSet(feature: string, migrations: readonly Migration[]): MigrationSet {
  if (!/^[a-z][a-z0-9_.-]*$/.test(feature))
    throw new TypeError(`a migration feature name is lower-case letters, digits, '_', '.', '-': not '${feature}'`);
  const seen = new Set<number>();
  for (const migration of migrations) {
    if (!Number.isSafeInteger(migration.version) || migration.version < 1)
      throw new TypeError(`migration ${feature} '${migration.name}': version must be a positive integer`);
    if (seen.has(migration.version)) throw new TypeError(`migration ${feature} v${migration.version} is defined twice`);
    seen.add(migration.version);
  }
  return { feature, migrations: [...migrations].sort((a, b) => a.version - b.version) };
}

function signature(set: MigrationSet): string {
  return JSON.stringify(set.migrations.map((m) => [m.version, m.name, checksum(m)]));
}

/** The SQL's SHA-256 (a function migration: of its source text). */
function checksum(migration: Migration): string {
  return createHash("sha256").update(String(migration.up)).digest("hex").slice(0, 32);
}

/** `name` or `schema.name`, each part quoted as an identifier. */
function quoteQualified(name: string): string {
  const parts = name.split(".");
  if (parts.length > 2 || parts.some((part) => part.length === 0))
    throw new TypeError(`table must be 'name' or 'schema.name', not '${name}'`);
  return parts.map((part) => `"${part.replaceAll('"', '""')}"`).join(".");
}
