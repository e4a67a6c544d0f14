/**
 * What the file store does with a damaged log: keep every byte (a quarantine copy beside the log), set the damaged
 * lines aside so the session can continue with every readable record, and fail the load that found the damage with
 * an error that names the files and says what to do. Nothing readable is ever deleted; the load never answers
 * success with a silently shorter history.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";
import { describeDamage, keptLines, type ScannedLog } from "./session-log-format.js";
import { createDurably, readRegularFile, replaceDurably, syncDirectory } from "./store-files.js";

/** The quarantine copies of a log are named `<log>.quarantine-<time>`. */
export const QUARANTINE_INFIX = ".quarantine-";

/** The names of `logPath`'s quarantine copies in its directory. */
export async function quarantineCopies(logPath: string): Promise<string[]> {
  const prefix = `${path.basename(logPath)}${QUARANTINE_INFIX}`;
  const names = await readdir(path.dirname(logPath)).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith(prefix)).map((name) => path.join(path.dirname(logPath), name));
}

/**
 * Writes a byte-for-byte copy of `bytes` beside `logPath` (reusing an identical earlier copy) and returns its path.
 * The copy is fsynced, and its directory entry too, before anything else touches the log.
 */
export async function quarantine(logPath: string, bytes: Buffer): Promise<string> {
  for (const existing of await quarantineCopies(logPath)) {
    const old = await readRegularFile(existing).catch(() => undefined);
    if (old !== undefined && old.equals(bytes)) return existing;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  for (let attempt = 0; ; attempt++) {
    const copy = `${logPath}${QUARANTINE_INFIX}${stamp}${attempt === 0 ? "" : `-${attempt}`}`;
    try {
      await createDurably(copy, bytes);
      await syncDirectory(path.dirname(logPath));
      return copy;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 100) throw error;
    }
  }
}

/** The error a load of a damaged log fails with (-32603, `data.reason: "damaged_history"`). */
export function damagedHistoryError(
  sessionId: string,
  logPath: string,
  copy: string,
  scanned: ScannedLog,
): RequestError {
  const count = scanned.damaged.length;
  return new RequestError(
    ErrorCodes.internalError,
    `Internal error: the history of session ${sessionId} is damaged: ${count} unreadable ` +
      `line${count === 1 ? "" : "s"} in ${logPath} ` +
      (`(${describeDamage(scanned.damaged)}). Nothing was deleted: a byte-for-byte copy of the log is at ` +
        `${copy}, and the damaged `) +
      (`lines were set aside. Load the session again to continue with its ${scanned.records.length} readable ` +
        `record${scanned.records.length === 1 ? "" : "s"}; `) +
      "recover the damaged lines from the copy if you need them.",
    {
      sessionId,
      path: logPath,
      quarantine: copy,
      reason: "damaged_history",
      readable: scanned.records.length,
      damaged: scanned.damaged
        .slice(0, 20)
        .map((line) => ({ line: line.line, offset: line.start, reason: line.reason })),
    },
  );
}

/**
 * Quarantines a damaged log and sets its damaged lines aside (the log is rewritten atomically with every record
 * and unknown line it held, the torn tail dropped), then returns the error for the load to fail with.
 */
export async function setAsideDamage(
  sessionId: string,
  logPath: string,
  bytes: Buffer,
  scanned: ScannedLog,
): Promise<RequestError> {
  const copy = await quarantine(logPath, bytes);
  await replaceDurably(logPath, keptLines(bytes, scanned));
  return damagedHistoryError(sessionId, logPath, copy, scanned);
}
