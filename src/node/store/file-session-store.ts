/**
 * The embedded on-disk `SessionStore`: one append-only log per session plus a small metadata file, under the user's
 * data directory (`userDataDir()/sessions`) unless told otherwise.
 *
 * The contract:
 * - A log line is `["<crc32 hex>",<record JSON>]` (valid NDJSON; the checksum covers the record's UTF-8 bytes, see
 *   `session-log-format.ts`). Appends are batched (records offered while a write is in flight join the next one)
 *   and each batch is written with one `write` then `fsync` before any of its `append` promises resolves.
 * - Recovery drops at most a torn tail: one incomplete record at the very end of the log, which a crash mid-write
 *   leaves (logged as a warning). A record whose newline alone is missing is complete, and kept.
 * - Anything else that is not a readable record (a line failing its checksum, garbage appended, a bad record in the
 *   middle) is never deleted: the load that finds it copies the whole log byte for byte beside it
 *   (`<log>.quarantine-<time>`), sets the damaged lines aside, and FAILS with a -32603 `RequestError`
 *   (`data.reason: "damaged_history"`) naming the log and the copy and saying what to do; the next load continues
 *   with every readable record. A load never answers success with a silently shorter history. (We chose to fail
 *   once rather than load the rest and only log it: the user sees the damage where they asked for the session.)
 * - Records with a valid checksum of a kind this version does not know (a newer version's) are kept in the log,
 *   skipped on replay, and reported as a warning. Lines converted to CRLF still read (each checksum holds).
 * - The store never follows a symlink: log and metadata are opened with `O_NOFOLLOW` (and must be regular files),
 *   the store directory must not be a symlink; each refusal is a -32603 `RequestError` (`data.reason: "symlink"`).
 * - Metadata (`SessionInfo` for `session/list`) is written atomically (temp file, fsync, rename, fsync of the
 *   directory) and checked on read: a file naming another session than its name says is refused
 *   (`data.reason: "metadata_mismatch"`), never served for the wrong id; `list` skips it and anything that is not a
 *   regular file, with an error log.
 * - Operations on one session run in call order; several processes may share a directory as long as no two
 *   append to the same session at once.
 */
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import {
  pageSessions,
  type SessionListQuery,
  type SessionMetadataPatch,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type StoredSession,
} from "../../agent/toolkit/session-store.js";
import { userDataDir } from "./data-dir.js";
import { CoalescedRun } from "./coalesced-run.js";
import { frameRecord, scanLog, type ScannedLog } from "./session-log-format.js";
import { quarantineCopies, setAsideDamage } from "./session-log-recovery.js";
import { appendDurably, checkStoreDirectory, readRegularFile, replaceDurably, truncateDurably } from "./store-files.js";

export { crc32Hex, frameRecord, scanLog, type ScannedLog } from "./session-log-format.js";

/** Options of `FileSessionStore`. */
export interface FileSessionStoreOptions {
  /** The directory holding the sessions. Default `userDataDir()/sessions`. Created (mode 0700) on first write. */
  dir?: string;
  /** Where warnings about dropped tails, unknown records and damage go. Silent by default. */
  logger?: Logger;
}

interface Batch {
  text: string;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

interface SessionState {
  chain: Promise<void>;
  batch: Batch | undefined;
  /** The log was scanned since this process last looked at it (its tail is known to be clean). */
  checked: boolean;
  /** The log's last line has no newline: the next append starts with one. */
  needsNewline: boolean;
}

interface MetaFile {
  v: 1;
  session: StoredSession;
}

type MetaRead = { state: "missing" } | { state: "ok"; session: StoredSession } | { state: "bad"; error: RequestError };

const MAX_ID_BYTES = 100;
const META_NAME = /^((?:[0-9a-f]{2})+)\.json$/;

/** The on-disk store. See the file's comment for the contract. */
export class FileSessionStore implements SessionStore {
  readonly dir: string;
  readonly #logger: Logger;
  readonly #states = new Map<string, SessionState>();

  constructor(options: FileSessionStoreOptions = {}) {
    this.dir = options.dir ?? path.join(userDataDir(), "sessions");
    this.#logger = options.logger ?? silentLogger;
  }

  /** The path of a session's log, or undefined for an id too long to be a file name. */
  logPath(sessionId: string): string | undefined {
    const base = this.#baseName(sessionId);
    return base === undefined ? undefined : path.join(this.dir, `${base}.log`);
  }

  create(session: StoredSession): Promise<void> {
    return this.#run(session.sessionId, async () => {
      const base = this.#requireBase(session.sessionId);
      await checkStoreDirectory(this.dir, true);
      const meta = await this.#readMeta(base, session.sessionId);
      if (meta.state === "bad") throw meta.error;
      if (meta.state === "ok") throw new Error(`session ${session.sessionId} already exists`);
      await this.#writeMeta(base, session);
    });
  }

  /**
   * The session's metadata; undefined when unknown. Throws a -32603 `RequestError` for an unreadable or foreign file.
   */
  async get(sessionId: string): Promise<StoredSession | undefined> {
    const base = this.#baseName(sessionId);
    if (base === undefined || !(await checkStoreDirectory(this.dir, false))) return undefined;
    const meta = await this.#readMeta(base, sessionId);
    if (meta.state === "bad") throw meta.error;
    return meta.state === "ok" ? meta.session : undefined;
  }

  append(sessionId: string, records: readonly SessionRecord[]): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    const text = records.map(frameRecord).join("");
    const state = this.#state(sessionId);
    return new Promise<void>((resolve, reject) => {
      if (state.batch !== undefined) {
        state.batch.text += text;
        state.batch.waiters.push({ resolve, reject });
        return;
      }
      const batch: Batch = { text, waiters: [{ resolve, reject }] };
      state.batch = batch;
      state.chain = state.chain.then(async () => {
        state.batch = undefined;
        try {
          await this.#writeBatch(sessionId, state, batch.text);
          for (const waiter of batch.waiters) waiter.resolve();
        } catch (error) {
          for (const waiter of batch.waiters) waiter.reject(error);
        }
      });
    });
  }

  /**
   * Every readable record, in order. Drops a torn tail (warning); a damaged log is quarantined and set aside, and
   * this call rejects with the -32603 `RequestError` that says so (the next call continues with what is readable).
   */
  history(sessionId: string): Promise<SessionRecord[]> {
    return this.#run(sessionId, async () => {
      const base = this.#baseName(sessionId);
      if (base === undefined || !(await checkStoreDirectory(this.dir, false))) return [];
      const logPath = path.join(this.dir, `${base}.log`);
      const state = this.#state(sessionId);
      state.checked = false;
      const bytes = await readRegularFile(logPath);
      if (bytes === undefined) return [];
      const scanned = scanLog(bytes);
      this.#reportReadable(sessionId, logPath, scanned);
      if (scanned.damaged.length > 0) {
        const error = await setAsideDamage(sessionId, logPath, bytes, scanned);
        this.#logger.error(
          "session log is damaged: quarantined a copy, set the damaged lines aside, failed this load",
          {
            sessionId,
            path: logPath,
            quarantine: (error.data as { quarantine: string }).quarantine,
            damaged: scanned.damaged.length,
            readable: scanned.records.length,
          },
        );
        throw error;
      }
      await this.#dropTornTail(sessionId, logPath, scanned);
      return scanned.records;
    });
  }

  /** One page of the stored sessions; concurrent calls share directory scans (`CoalescedRun`). */
  async list(query?: SessionListQuery): Promise<SessionPage> {
    return pageSessions(await this.#scan.get(), query);
  }

  readonly #scan = new CoalescedRun(() => this.#scanSessions());

  async #scanSessions(): Promise<StoredSession[]> {
    if (!(await checkStoreDirectory(this.dir, false))) return [];
    const sessions: StoredSession[] = [];
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      const match = META_NAME.exec(entry.name);
      if (match === null) continue;
      const sessionId = Buffer.from(match[1]!, "hex").toString("utf8");
      if (Buffer.from(sessionId, "utf8").toString("hex") !== match[1]) continue; // not a name this store writes
      if (!entry.isFile()) {
        this.#logger.warn("session store: skipped an entry that is not a regular file", {
          path: path.join(this.dir, entry.name),
        });
        continue;
      }
      let meta: MetaRead;
      try {
        meta = await this.#readMeta(match[1]!, sessionId);
      } catch (error) {
        meta = {
          state: "bad",
          error: error instanceof RequestError ? error : RequestError.internalError(undefined, String(error)),
        };
      }
      if (meta.state === "ok") sessions.push(meta.session);
      else if (meta.state === "bad")
        this.#logger.error("session store: skipped a session whose metadata cannot be used", {
          path: path.join(this.dir, entry.name),
          detail: meta.error.message,
        });
    }
    return sessions;
  }

  update(sessionId: string, patch: SessionMetadataPatch): Promise<void> {
    return this.#run(sessionId, async () => {
      const base = this.#requireBase(sessionId);
      if (!(await checkStoreDirectory(this.dir, false))) throw new Error(`session ${sessionId} does not exist`);
      const meta = await this.#readMeta(base, sessionId);
      if (meta.state === "bad") throw meta.error;
      if (meta.state === "missing") throw new Error(`session ${sessionId} does not exist`);
      await this.#writeMeta(base, { ...meta.session, ...patch });
    });
  }

  /** Removes the session's metadata, log and quarantine copies (links are removed, never followed). */
  delete(sessionId: string): Promise<void> {
    return this.#run(sessionId, async () => {
      const base = this.#baseName(sessionId);
      if (base === undefined || !(await checkStoreDirectory(this.dir, false))) return;
      const logPath = path.join(this.dir, `${base}.log`);
      await rm(path.join(this.dir, `${base}.json`), { force: true });
      await rm(logPath, { force: true });
      for (const copy of await quarantineCopies(logPath)) await rm(copy, { force: true });
      this.#states.delete(sessionId);
    });
  }

  /** Waits for every queued operation. Nothing stays open between operations, so this is all closing needs. */
  async close(): Promise<void> {
    await Promise.all([...this.#states.values()].map((state) => state.chain));
  }

  #baseName(sessionId: string): string | undefined {
    const bytes = Buffer.from(sessionId, "utf8");
    return bytes.length === 0 || bytes.length > MAX_ID_BYTES ? undefined : bytes.toString("hex");
  }

  #requireBase(sessionId: string): string {
    const base = this.#baseName(sessionId);
    if (base === undefined) throw new Error(`session id must be 1 to ${MAX_ID_BYTES} UTF-8 bytes`);
    return base;
  }

  #state(sessionId: string): SessionState {
    let state = this.#states.get(sessionId);
    if (state === undefined) {
      state = { chain: Promise.resolve(), batch: undefined, checked: false, needsNewline: false };
      this.#states.set(sessionId, state);
    }
    return state;
  }

  /** Runs `operation` after everything queued for the session. */
  #run<T>(sessionId: string, operation: () => Promise<T>): Promise<T> {
    const state = this.#state(sessionId);
    const result = state.chain.then(operation);
    state.chain = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  async #writeBatch(sessionId: string, state: SessionState, text: string): Promise<void> {
    const base = this.#requireBase(sessionId);
    const logPath = path.join(this.dir, `${base}.log`);
    if (!state.checked) {
      if (!(await checkStoreDirectory(this.dir, false))) throw new Error(`session ${sessionId} does not exist`);
      const meta = await this.#readMeta(base, sessionId);
      if (meta.state === "bad") throw meta.error;
      if (meta.state === "missing") throw new Error(`session ${sessionId} does not exist`);
      const bytes = await readRegularFile(logPath);
      const scanned = bytes === undefined ? undefined : scanLog(bytes);
      if (scanned !== undefined) {
        if (scanned.damaged.length > 0) {
          // Appending after damage loses nothing (the next load quarantines and reports it); a damaged unterminated
          // tail gets a newline first so the new records stay whole.
          this.#logger.error(
            "session log has damaged lines; appending after them, the next load will quarantine and report them",
            {
              sessionId,
              path: logPath,
              damaged: scanned.damaged.length,
            },
          );
        }
        await this.#dropTornTail(sessionId, logPath, scanned);
      }
      state.needsNewline = scanned?.unterminated ?? false;
      state.checked = true;
    }
    await appendDurably(logPath, Buffer.from(state.needsNewline ? `\n${text}` : text, "utf8"));
    state.needsNewline = false;
  }

  #reportReadable(sessionId: string, logPath: string, scanned: ScannedLog): void {
    if (scanned.unknown > 0) {
      this.#logger.warn(
        "session log holds records of an unknown kind (written by a newer version?); kept them, skipped them on replay",
        {
          sessionId,
          path: logPath,
          unknown: scanned.unknown,
        },
      );
    }
    if (scanned.crlf > 0) {
      this.#logger.warn(
        "session log has CRLF line endings (converted by an editor or a copy?); its records still read",
        { sessionId, path: logPath, lines: scanned.crlf },
      );
    }
  }

  /** Truncates a torn tail away (it holds no valid record), with a warning. */
  async #dropTornTail(sessionId: string, logPath: string, scanned: ScannedLog): Promise<void> {
    if (scanned.tornBytes === 0) return;
    this.#logger.warn("session log ends in a torn record (an interrupted write); dropped it", {
      sessionId,
      path: logPath,
      droppedBytes: scanned.tornBytes,
    });
    await truncateDurably(logPath, scanned.tornStart);
    scanned.tornBytes = 0;
  }

  async #readMeta(base: string, sessionId: string): Promise<MetaRead> {
    const file = path.join(this.dir, `${base}.json`);
    const bytes = await readRegularFile(file);
    if (bytes === undefined) return { state: "missing" };
    let meta: Partial<MetaFile> | undefined;
    try {
      meta = JSON.parse(bytes.toString("utf8")) as Partial<MetaFile>;
    } catch {
      meta = undefined;
    }
    const named =
      meta?.v === 1 && typeof meta.session?.sessionId === "string" && typeof meta.session.cwd === "string"
        ? meta.session
        : undefined;
    if (named === undefined) {
      return {
        state: "bad",
        error: metaError(
          file,
          "metadata_unreadable",
          `the session metadata file ${file} is unreadable (not the JSON this store writes); fix or remove it`,
        ),
      };
    }
    if (named.sessionId !== sessionId) {
      return {
        state: "bad",
        error: metaError(
          file,
          "metadata_mismatch",
          `the session metadata file ${file} names session ${named.sessionId}, not ${sessionId} (was it ` +
            `copied or renamed?); the store will not serve it as ${sessionId}. Move it back or remove it`,
        ),
      };
    }
    return { state: "ok", session: named };
  }

  async #writeMeta(base: string, session: StoredSession): Promise<void> {
    await checkStoreDirectory(this.dir, true);
    await replaceDurably(path.join(this.dir, `${base}.json`), JSON.stringify({ v: 1, session } satisfies MetaFile));
  }
}

function metaError(file: string, reason: string, message: string): RequestError {
  return new RequestError(ErrorCodes.internalError, `Internal error: ${message}.`, { path: file, reason });
}
