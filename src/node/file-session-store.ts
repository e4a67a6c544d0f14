/**
 * The embedded on-disk `SessionStore`: one append-only log per session plus a small metadata file, under the user's
 * data directory (`userDataDir()/sessions`) unless told otherwise.
 *
 * Crash safety, the contract:
 * - A log line is `["<crc32 hex>",<record JSON>]` (valid NDJSON; the checksum covers the record's UTF-8 bytes).
 *   Appends are batched (records offered while a write is in flight join the next one) and each batch is written
 *   with one `write` then `fsync` before any of its `append` promises resolves.
 * - History is never rewritten. A torn or garbled LAST record (a crash mid-write) is detected, dropped with a
 *   logger warning, and the log truncated back to the last good record before the next append. A bad record with
 *   good ones after it (disk damage, not a crash) is skipped with an error log and left in place.
 * - Metadata (`SessionInfo` for `session/list`) is written atomically: temp file, fsync, rename.
 * - Operations on one session run in call order; several processes may share a directory as long as no two
 *   append to the same session at once.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, truncate } from "node:fs/promises";
import path from "node:path";
import { silentLogger, type Logger } from "../jsonrpc/logger.js";
import {
  pageSessions,
  type SessionListQuery,
  type SessionMetadataPatch,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type StoredSession,
} from "../agent/toolkit/session-store.js";
import { userDataDir } from "./data-dir.js";

/** Options of `FileSessionStore`. */
export interface FileSessionStoreOptions {
  /** The directory holding the sessions. Default `userDataDir()/sessions`. Created on first write. */
  dir?: string;
  /** Where warnings about dropped records go. Silent by default. */
  logger?: Logger;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE) of `bytes`, as 8 lowercase hex digits. */
export function crc32Hex(bytes: Uint8Array): string {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0");
}

/** One record as one framed log line (with its newline). */
export function frameRecord(record: SessionRecord): string {
  const json = JSON.stringify(record);
  return `["${crc32Hex(Buffer.from(json, "utf8"))}",${json}]\n`;
}

const PREFIX_LENGTH = 12; // ["xxxxxxxx",

/** Parses one log line (without its newline); undefined when torn, garbled or failing its checksum. */
function parseLine(line: Buffer): SessionRecord | undefined {
  if (line.length < PREFIX_LENGTH + 2 || line[line.length - 1] !== 0x5d) return undefined;
  const head = line.subarray(0, PREFIX_LENGTH).toString("latin1");
  if (!/^\["[0-9a-f]{8}",$/.test(head)) return undefined;
  const body = line.subarray(PREFIX_LENGTH, line.length - 1);
  if (crc32Hex(body) !== head.slice(2, 10)) return undefined;
  try {
    const record = JSON.parse(body.toString("utf8")) as SessionRecord;
    return record !== null && typeof record === "object" && (record.kind === "update" || record.kind === "data") ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The records of a log, where its good part ends, and how many damaged lines lie before that end. */
export interface ScannedLog {
  records: SessionRecord[];
  goodEnd: number;
  skipped: number;
}

/** Reads a whole log: every good record, the byte offset just past the last good one, damaged lines before it. */
export function scanLog(bytes: Buffer): ScannedLog {
  const records: SessionRecord[] = [];
  let goodEnd = 0;
  let badSinceGood = 0;
  let skipped = 0;
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    if (newline === -1) break; // an unterminated tail: torn
    const record = parseLine(bytes.subarray(start, newline));
    if (record === undefined) badSinceGood++;
    else {
      records.push(record);
      skipped += badSinceGood;
      badSinceGood = 0;
      goodEnd = newline + 1;
    }
    start = newline + 1;
  }
  return { records, goodEnd, skipped };
}

interface Batch {
  text: string;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

interface SessionState {
  chain: Promise<void>;
  batch: Batch | undefined;
  checked: boolean;
}

interface MetaFile {
  v: 1;
  session: StoredSession;
}

const MAX_ID_BYTES = 100;

/** The on-disk store. See the file's comment for the crash-safety contract. */
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
      await mkdir(this.dir, { recursive: true });
      if ((await this.#readMeta(base)) !== undefined) throw new Error(`session ${session.sessionId} already exists`);
      await this.#writeMeta(base, session);
    });
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    const base = this.#baseName(sessionId);
    return base === undefined ? undefined : this.#readMeta(base);
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

  history(sessionId: string): Promise<SessionRecord[]> {
    return this.#run(sessionId, async () => {
      const base = this.#baseName(sessionId);
      if (base === undefined) return [];
      return (await this.#scan(sessionId, path.join(this.dir, `${base}.log`))).records;
    });
  }

  async list(query?: SessionListQuery): Promise<SessionPage> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return pageSessions([], query);
      throw error;
    }
    const sessions: StoredSession[] = [];
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      const session = await this.#readMeta(name.slice(0, -5));
      if (session !== undefined) sessions.push(session);
    }
    return pageSessions(sessions, query);
  }

  update(sessionId: string, patch: SessionMetadataPatch): Promise<void> {
    return this.#run(sessionId, async () => {
      const base = this.#requireBase(sessionId);
      const session = await this.#readMeta(base);
      if (session === undefined) throw new Error(`session ${sessionId} does not exist`);
      await this.#writeMeta(base, { ...session, ...patch });
    });
  }

  delete(sessionId: string): Promise<void> {
    return this.#run(sessionId, async () => {
      const base = this.#baseName(sessionId);
      if (base === undefined) return;
      await rm(path.join(this.dir, `${base}.json`), { force: true });
      await rm(path.join(this.dir, `${base}.log`), { force: true });
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
      state = { chain: Promise.resolve(), batch: undefined, checked: false };
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
      if ((await this.#readMeta(base)) === undefined) throw new Error(`session ${sessionId} does not exist`);
      await this.#scan(sessionId, logPath);
      state.checked = true;
    }
    const handle = await open(logPath, "a");
    try {
      await handle.write(Buffer.from(text, "utf8"));
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** Reads a log, dropping (and truncating away) a torn tail with a warning. */
  async #scan(sessionId: string, logPath: string): Promise<ScannedLog> {
    let bytes: Buffer;
    try {
      bytes = await readFile(logPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { records: [], goodEnd: 0, skipped: 0 };
      throw error;
    }
    const scanned = scanLog(bytes);
    if (scanned.skipped > 0) {
      this.#logger.error("session log has damaged records between good ones; skipped them", { sessionId, skipped: scanned.skipped, path: logPath });
    }
    if (scanned.goodEnd < bytes.length) {
      this.#logger.warn("session log ends in a torn or garbled record (an interrupted write); dropped it", {
        sessionId,
        path: logPath,
        droppedBytes: bytes.length - scanned.goodEnd,
      });
      await truncate(logPath, scanned.goodEnd);
    }
    return scanned;
  }

  async #readMeta(base: string): Promise<StoredSession | undefined> {
    let text: string;
    try {
      text = await readFile(path.join(this.dir, `${base}.json`), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    try {
      const meta = JSON.parse(text) as MetaFile;
      if (meta.v === 1 && typeof meta.session?.sessionId === "string") return meta.session;
    } catch {
      // reported below
    }
    this.#logger.error("unreadable session metadata file; ignored it", { path: path.join(this.dir, `${base}.json`) });
    return undefined;
  }

  async #writeMeta(base: string, session: StoredSession): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const target = path.join(this.dir, `${base}.json`);
    const temp = `${target}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temp, "w");
    try {
      await handle.writeFile(JSON.stringify({ v: 1, session } satisfies MetaFile));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  }
}
