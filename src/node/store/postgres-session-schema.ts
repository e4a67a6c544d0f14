/**
 * The PostgreSQL session store's schema: the `sessions` migration set (registered with the kit, applied by
 * `migrate`). Two tables:
 * - `acpkit_sessions`: one row per session: its metadata as the JSON the store was given (`info`), the columns
 *   `session/list` filters and orders by (`cwd`, `updated_at`, `session_id`, compared byte by byte: `COLLATE "C"`),
 *   the last record number written (`last_seq`), and the session's write lease (holder, fencing token, expiry).
 * - `acpkit_session_records`: the history, one row per record (`seq` from 1, in order), the record's JSON as text
 *   (kept exactly as written: no server-side parsing, so no depth limit, and a `\u0000` in a string stays escaped).
 *   Records are inserted only under their session's row lock (`postgres-session-writer.ts`) and deleted with it
 *   (`tryDelete`), so none outlives its session.
 * Never renumber or edit a released migration: add one.
 */
import { registerMigrations, type MigrationSet } from "../postgres/migrations.js";

/** The migration feature name of the session store. */
export const SESSIONS_FEATURE = "sessions";

export const SESSIONS_TABLE = "acpkit_sessions";
export const RECORDS_TABLE = "acpkit_session_records";

/** The session store's migrations (registered when this module loads; `migrate` applies them). */
export const SESSIONS_MIGRATIONS: MigrationSet = registerMigrations(SESSIONS_FEATURE, [
  {
    version: 1,
    name: "create sessions and session records",
    up: `
CREATE TABLE ${SESSIONS_TABLE} (
  session_id text COLLATE "C" PRIMARY KEY,
  cwd text NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  info text NOT NULL,
  last_seq bigint NOT NULL DEFAULT 0,
  lease_token bigint NOT NULL DEFAULT 0,
  lease_holder text,
  lease_holder_name text,
  lease_expires_at timestamptz
);
-- session/list: newest first, then by id; and the same within one cwd (by its hash: a path may be longer than a
-- b-tree entry may be).
CREATE INDEX acpkit_sessions_by_update ON ${SESSIONS_TABLE} (updated_at DESC, session_id);
CREATE INDEX acpkit_sessions_by_cwd ON ${SESSIONS_TABLE} (md5(cwd), updated_at DESC, session_id);
-- No foreign key (its check per row would cost more than the insert): a record is only ever inserted by the
-- statement that holds its session's row lock, and a session's records are deleted with the row, under that lock.
CREATE TABLE ${RECORDS_TABLE} (
  session_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  record text NOT NULL,
  PRIMARY KEY (session_id, seq)
);`,
  },
]);
