/**
 * A `SessionStore` on PostgreSQL, for agents that run on several machines or whose sessions must outlive a disk:
 * the same contract as the file store (`file-session-store.ts`), on the database's guarantees instead of fsync.
 *
 * The contract:
 * - Write-ahead, batched: the appends of all sessions made in one tick (and those made while a batch is being
 *   written) go to the database as one statement (`WriteBatcher`); each `append` resolves only once that statement
 *   committed (durable: PostgreSQL's `synchronous_commit`), and rejects when it did not. Transient failures (the
 *   server restarting, a connection cut) are retried within the pool's bound; a retried statement never writes a
 *   record twice (records are numbered by the lease holder, `postgres-session-writer.ts`).
 * - One writer per session (`postgres-session-lease.ts`): a store takes a session's lease when it creates the
 *   session or first writes it (`update`, `append`, `delete`), renews it every third of `leaseTtlMs`, and gives it
 *   up on `releaseSession` (the toolkit calls it when a session closes or its connection ends) and `close`. Another store
 *   then fails at once with a `SessionLeaseError` (`session_leased`) or waits for it (`whenLeased: "wait"`, up to
 *   `leaseWaitMs`). A process that dies loses its leases after `leaseTtlMs`. Every write is fenced by the lease's
 *   token in the same statement: once another store took the lease over, this one writes nothing more to the
 *   session (`lease_lost`), until the session is loaded again.
 * - `history` returns every record in order; a row that is not a readable record (edited by hand, or of a kind a
 *   newer version writes) is kept in the table, skipped, and reported to the logger. Records are kept as the JSON
 *   text they were given, so nothing the client saw is normalised away.
 * - `list` pages newest first with an opaque cursor (keyset, in SQL) and filters by exact `cwd`; ids and times
 *   compare byte by byte (`COLLATE "C"`), which is JavaScript's order for every string without characters above
 *   U+FFFF (ISO times and the toolkit's ids).
 * - Credentials never reach an error or a log line (the kit's pool redacts them).
 */
import { hostname } from "node:os";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type {
  SessionListQuery,
  SessionMetadataPatch,
  SessionPage,
  SessionRecord,
  SessionStore,
  StoredSession,
} from "../../agent/toolkit/session-store.js";
import { migrate } from "../postgres/migrations.js";
import { createPostgresPool, type PostgresOptions, type PostgresPool } from "../postgres/pool.js";
import { describeDatabase } from "../postgres/redact.js";
import { WriteBatcher } from "../postgres/write-batcher.js";
import { tryDelete, type LeaseHolder } from "./postgres-session-lease.js";
import { LeaseKeeper, settle } from "./postgres-session-lease-keeper.js";
import { listSessions, parseInfo, readHistory, readInfo } from "./postgres-session-read.js";
import { SESSIONS_MIGRATIONS, SESSIONS_TABLE } from "./postgres-session-schema.js";
import { leaseKey, writeAppends, type AppendItem } from "./postgres-session-writer.js";

/** Options of `PostgresSessionStore`: where the database is (`connection` or `pool`), and the lease. */
export interface PostgresSessionStoreOptions {
  /** A connection string (`postgres://user:password@host/db`) or options: the store opens a pool, and ends it on `close`. */
  readonly connection?: string | PostgresOptions;
  /** A pool to use instead (one a server already has, from `createPostgresPool`); `close` leaves it open. */
  readonly pool?: PostgresPool;
  /** Apply the `sessions` migrations when the store opens (default true). */
  readonly migrate?: boolean;
  /** How long a lease lasts without renewal: a dead process's sessions are free after this (default 10,000 ms). */
  readonly leaseTtlMs?: number;
  /** When another process holds a session's lease: fail at once (default) or wait for it, up to `leaseWaitMs`. */
  readonly whenLeased?: "fail" | "wait";
  /** The longest wait for a lease with `whenLeased: "wait"` (default `leaseTtlMs` + 5,000 ms). */
  readonly leaseWaitMs?: number;
  /** This store's name in other processes' lease errors (default `<host> pid <pid>`); clients of the agent see it. */
  readonly holderName?: string;
  /** Where skipped records, lost leases and failed renewals are reported. Default: the pool's logger, else silent. */
  readonly logger?: Logger;
  /** Appends per statement at most (default 500). */
  readonly maxBatch?: number;
}

const MAX_ID_BYTES = 512;
const noop = () => {};

/** The PostgreSQL store. See the file's comment for the contract; `open` connects and migrates. */
export class PostgresSessionStore implements SessionStore {
  /** The database, for log lines: `postgres://user@host:port/database` (never the password). */
  readonly database: string;
  /** This store's lease identity. */
  readonly holder: LeaseHolder;
  readonly leaseTtlMs: number;
  readonly #options: PostgresSessionStoreOptions;
  readonly #leases: LeaseKeeper;
  readonly #batcher: WriteBatcher<AppendItem, Error | undefined>;
  #logger: Logger;
  #pool: PostgresPool | undefined;
  #ready: Promise<PostgresPool> | undefined;
  #closed: Promise<void> | undefined;
  #finished = false;

  /** A store that connects on first use; prefer `PostgresSessionStore.open`, which fails early. */
  constructor(options: PostgresSessionStoreOptions) {
    if (options.pool === undefined && options.connection === undefined)
      throw new TypeError("PostgresSessionStore needs a connection (a postgres:// URL or options) or a pool");
    this.#options = options;
    const connection =
      typeof options.connection === "string" ? { connectionString: options.connection } : options.connection;
    this.database = options.pool?.database ?? describeDatabase(connection ?? {});
    this.holder = {
      id: globalThis.crypto.randomUUID(),
      name: options.holderName ?? `${hostname()} pid ${process.pid}`,
    };
    this.leaseTtlMs = Math.max(100, options.leaseTtlMs ?? 10_000);
    this.#logger = options.logger ?? options.pool?.logger ?? silentLogger;
    const policy = {
      ttlMs: this.leaseTtlMs,
      whenLeased: options.whenLeased ?? "fail",
      waitMs: options.leaseWaitMs ?? this.leaseTtlMs + 5_000,
    } as const;
    this.#leases = new LeaseKeeper(this.holder, policy, () => this.#logger);
    this.#batcher = new WriteBatcher({ maxBatch: options.maxBatch ?? 500, write: (items) => this.#write(items) });
  }

  /** Opens a store: connects, applies the migrations, and resolves once it is ready (or rejects, redacted). */
  static async open(options: PostgresSessionStoreOptions): Promise<PostgresSessionStore> {
    const store = new PostgresSessionStore(options);
    await store.ready();
    return store;
  }

  /** Connects and migrates once (again after a failure). */
  ready(): Promise<PostgresPool> {
    // Work queued before `close` still runs; nothing after it.
    if (this.#finished || (this.#ready === undefined && this.#closed !== undefined))
      return Promise.reject(new Error("acpkit: the PostgreSQL session store is closed; open a new one"));
    this.#ready ??= this.#start().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #start(): Promise<PostgresPool> {
    const { pool: given, connection } = this.#options;
    const pool =
      given ??
      (await createPostgresPool({
        applicationName: "acpkit sessions",
        ...(this.#options.logger === undefined ? {} : { logger: this.#options.logger }),
        ...(typeof connection === "string" ? { connectionString: connection } : connection),
      }));
    try {
      if (this.#options.migrate !== false) await migrate(pool, { sets: [SESSIONS_MIGRATIONS] });
    } catch (error) {
      if (given === undefined) await pool.end().catch(noop);
      throw error;
    }
    this.#pool = pool;
    if (this.#options.logger === undefined) this.#logger = pool.logger;
    this.#leases.attach(pool);
    return pool;
  }

  async create(session: StoredSession): Promise<void> {
    const bytes = Buffer.byteLength(session.sessionId, "utf8");
    if (bytes === 0 || bytes > MAX_ID_BYTES) throw new Error(`session id must be 1 to ${MAX_ID_BYTES} UTF-8 bytes`);
    const info = JSON.stringify(session);
    const state = this.#leases.state(session.sessionId);
    return this.#leases.step(session.sessionId, state, async () => {
      const pool = await this.ready();
      const token = await pool.retry("create session", async (attempt) => {
        const { rows } = await pool.query<{ token: string }>(
          `INSERT INTO ${SESSIONS_TABLE}
             (session_id, cwd, updated_at, info, lease_token, lease_holder, lease_holder_name, lease_expires_at)
           VALUES ($1, $2, $3, $4, 1, $5, $6, clock_timestamp() + $7::int * interval '1 millisecond')
           ON CONFLICT (session_id) DO NOTHING
           RETURNING lease_token::text AS token`,
          [session.sessionId, session.cwd, session.updatedAt, info, this.holder.id, this.holder.name, this.leaseTtlMs],
        );
        if (rows[0] !== undefined) return rows[0].token;
        // Ours already, when an earlier attempt of this call committed but its answer was lost.
        const existing = await pool.query<{ holder: string | null; info: string; token: string }>(
          `SELECT lease_holder AS holder, info, lease_token::text AS token FROM ${SESSIONS_TABLE} WHERE session_id = $1`,
          [session.sessionId],
        );
        const row = existing.rows[0];
        if (attempt > 1 && row?.holder === this.holder.id && row.info === info && row.token === "1") return row.token;
        throw new Error(`session ${session.sessionId} already exists`);
      });
      state.lease = { token, nextSeq: 1 };
      state.lost = undefined;
    });
  }

  /** The session's metadata; undefined when unknown. */
  async get(sessionId: string): Promise<StoredSession | undefined> {
    return readInfo(await this.ready(), sessionId);
  }

  append(sessionId: string, records: readonly SessionRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    let texts: string[];
    try {
      texts = records.map((record) => recordText(sessionId, record));
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const state = this.#leases.state(sessionId);
    return this.#leases
      .step(sessionId, state, async () => {
        await this.ready();
        const lease = await this.#leases.lease(sessionId, state);
        const firstSeq = lease.nextSeq;
        lease.nextSeq += texts.length;
        const written = this.#batcher.add({ sessionId, token: lease.token, firstSeq, texts });
        state.writes.add(written);
        void written.finally(() => state.writes.delete(written)).catch(noop);
        // Not awaited here: the next append of this session is numbered and queued while this one is being written.
        return { written };
      })
      .then(async ({ written }) => {
        const refused = await written;
        if (refused !== undefined) throw refused;
      });
  }

  /** Every readable record, in order (see the file's comment for what is skipped). */
  async history(sessionId: string): Promise<SessionRecord[]> {
    const pool = await this.ready();
    const state = this.#leases.existing(sessionId);
    // Appends made before this call are read back.
    if (state !== undefined) await this.#leases.step(sessionId, state, () => settle(state.writes));
    return readHistory(pool, sessionId, this.#logger);
  }

  async list(query: SessionListQuery = {}): Promise<SessionPage> {
    return listSessions(await this.ready(), query, this.#logger);
  }

  update(sessionId: string, patch: SessionMetadataPatch): Promise<void> {
    const state = this.#leases.state(sessionId);
    return this.#leases.step(sessionId, state, async () => {
      const pool = await this.ready();
      const lease = await this.#leases.lease(sessionId, state);
      const written = await pool.retry("update session", async () => {
        const { rows } = await pool.query<{ info: string }>(
          `SELECT info FROM ${SESSIONS_TABLE} WHERE session_id = $1`,
          [sessionId],
        );
        if (rows[0] === undefined) return false;
        const merged: StoredSession = { ...parseInfo(sessionId, rows[0].info, this.database) };
        for (const [key, value] of Object.entries(patch))
          if (value !== undefined) Object.assign(merged, { [key]: value });
        const result = await pool.query(
          `UPDATE ${SESSIONS_TABLE} SET info = $4, updated_at = $5
            WHERE session_id = $1 AND lease_holder = $2 AND lease_token = $3`,
          [sessionId, this.holder.id, lease.token, JSON.stringify(merged), String(merged.updatedAt ?? "")],
        );
        return (result.rowCount ?? 0) > 0;
      });
      if (!written) throw (await this.#leases.refused([{ sessionId, token: lease.token }])).get(sessionId)!;
    });
  }

  /** Deletes the session and its history (unknown ids succeed); refused while another process holds its lease. */
  delete(sessionId: string): Promise<void> {
    const state = this.#leases.state(sessionId);
    return this.#leases.step(sessionId, state, async () => {
      const pool = await this.ready();
      await settle(state.writes);
      await this.#leases.whileLeased(sessionId, () =>
        pool.transaction((tx) => tryDelete(tx, this.holder, sessionId), {
          operation: "delete session",
          idempotent: true,
        }),
      );
      state.lease = undefined;
      state.lost = undefined;
    });
  }

  /** Gives up the session's lease once its pending writes are done (see `SessionStore.releaseSession`). */
  releaseSession(sessionId: string): Promise<void> {
    return this.#leases.release(sessionId);
  }

  /** Writes what is pending, gives up every lease, and ends the pool it opened (a given pool stays open). */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#leases.stop();
      if (this.#ready === undefined) return;
      const pool = await this.#ready.catch(() => undefined);
      if (pool === undefined) return;
      await settle(this.#leases.chains());
      await this.#batcher.close();
      await this.#leases.releaseAll();
      this.#finished = true;
      if (this.#options.pool === undefined) await pool.end();
    })();
    return this.#closed;
  }

  /** Writes one batch of appends (the batcher's `write`): each item's result is undefined, or why it was refused. */
  async #write(items: readonly AppendItem[]): Promise<(Error | undefined)[]> {
    const pool = this.#pool!;
    const written = await pool.retry("append session records", () =>
      writeAppends(pool, this.holder.id, items, this.leaseTtlMs),
    );
    const refusedItems = items.filter((item) => !written.has(leaseKey(item.sessionId, item.token)));
    const refused = refusedItems.length === 0 ? new Map<string, Error>() : await this.#leases.refused(refusedItems);
    return items.map((item) =>
      written.has(leaseKey(item.sessionId, item.token)) ? undefined : refused.get(item.sessionId),
    );
  }
}

/** A record as the JSON text stored; a record JSON cannot hold is refused before anything is written. */
function recordText(sessionId: string, record: SessionRecord): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(record);
  } catch (error) {
    throw new Error(
      `session ${sessionId}: a record cannot be stored, it is not JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  if (text === undefined) throw new Error(`session ${sessionId}: a record cannot be stored, it is not JSON`);
  return text;
}
