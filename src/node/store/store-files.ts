/**
 * File operations for the session store that never follow a symlink and only touch regular files: every file is
 * opened with `O_NOFOLLOW` (a symlink fails the open instead of being followed) and `O_NONBLOCK` (a FIFO put in
 * its place cannot block), then checked with `fstat` on the descriptor actually opened. The store directory itself
 * must be a real directory, not a symlink (its parents may be links: that is the user's layout, not the store's).
 *
 * Refusals are `RequestError`s (-32603, `data.reason` "symlink" or "not_a_file" or "not_a_directory") that name the
 * path and say what to do, so a `session/load` failing on them tells the user why.
 *
 * Where it stops: on Windows there is no `O_NOFOLLOW`; links there are refused by the `lstat` checks only.
 */
import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** The store refuses `file`: it is a symlink. */
export function symlinkRefused(file: string, what = "file"): RequestError {
  return new RequestError(
    ErrorCodes.internalError,
    `Internal error: refusing to follow the session store ${what} ${file}: it is a symlink, and the store ` +
      `never follows ` +
      ("symlinks (a link there could make it read or overwrite another file). Replace it with the real file or " +
        "directory, or remove it."),
    { path: file, reason: "symlink" },
  );
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

/** The store refuses `file`: it is not a regular file. */
export function notAFile(file: string, stats: Stats): RequestError {
  return new RequestError(
    ErrorCodes.internalError,
    `Internal error: the session store file ${file} is not a regular file (it is ${kindOf(stats)}); the store ` +
      `only reads and ` +
      "writes regular files. Move it out of the store directory.",
    { path: file, reason: "not_a_file" },
  );
}

/** Maps an open failure: a symlink (ELOOP/EMLINK with O_NOFOLLOW) becomes a refusal; others propagate. */
async function openFailure(file: string, error: unknown): Promise<never> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP" || code === "EMLINK" || code === "ENXIO") {
    const stats = await lstat(file).catch(() => undefined);
    if (stats?.isSymbolicLink()) throw symlinkRefused(file);
    if (stats !== undefined && !stats.isFile()) throw notAFile(file, stats);
  }
  throw error;
}

/**
 * Opens `file` without following a link and checks it is a regular file. Resolves undefined for ENOENT when
 * `missingOk`.
 */
async function openRegular(file: string, flags: number, missingOk: boolean): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, flags | NOFOLLOW | NONBLOCK, 0o600);
  } catch (error) {
    if (missingOk && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return openFailure(file, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notAFile(file, stats);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The bytes of a regular file, or undefined when it does not exist. */
export async function readRegularFile(file: string): Promise<Buffer | undefined> {
  const handle = await openRegular(file, constants.O_RDONLY, true);
  if (handle === undefined) return undefined;
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Appends `bytes` to a regular file (created if missing) and fsyncs it. */
export async function appendDurably(file: string, bytes: Buffer): Promise<void> {
  const handle = (await openRegular(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, false))!;
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Cuts a regular file to `length` bytes and fsyncs it. */
export async function truncateDurably(file: string, length: number): Promise<void> {
  const handle = (await openRegular(file, constants.O_WRONLY, false))!;
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `file` (it must not exist: O_EXCL) with `bytes`, fsynced. */
export async function createDurably(file: string, bytes: Buffer | string): Promise<void> {
  const handle = (await openRegular(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, false))!;
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces `file` atomically: a new temp file beside it, fsync, rename over it, fsync the directory. */
export async function replaceDurably(file: string, bytes: Buffer | string): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await createDurably(temp, bytes);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  await syncDirectory(path.dirname(file));
}

/** Fsyncs a directory (so a rename or a new name in it is durable). Best effort: not every platform allows it. */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY | NOFOLLOW);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory; some file systems refuse fsync on one.
  }
}

/**
 * Checks the store directory is a real directory (not a symlink). Resolves false when it does not exist and
 * `create` is false; with `create`, makes it (and its parents) first.
 */
export async function checkStoreDirectory(dir: string, create: boolean): Promise<boolean> {
  let stats: Stats;
  try {
    stats = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    if (!create) return false;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    stats = await lstat(dir);
  }
  if (stats.isSymbolicLink()) throw symlinkRefused(dir, "directory");
  if (!stats.isDirectory()) {
    throw new RequestError(
      ErrorCodes.internalError,
      `Internal error: the session store directory ${dir} is not a directory; give another \`dir\`.`,
      {
        path: dir,
        reason: "not_a_directory",
      },
    );
  }
  return true;
}
