/**
 * Opening files so that the confinement check is bound to the file actually opened, not to a path that may change
 * between the check and the use (a directory in the middle of the path swapped for a symlink, a file replaced).
 *
 * - Existing files are opened with `O_NOFOLLOW` (a final symlink fails the open) and `O_NONBLOCK` (a FIFO cannot
 *   block), never with `O_TRUNC` or `O_CREAT`; then the descriptor is verified before a byte is read or written:
 *   its real path must lie inside a root, and it must be a regular file.
 * - New files and directories are created inside a directory descriptor that was itself verified, by a path
 *   relative to that descriptor, so a swapped parent cannot redirect them; the new file's descriptor is verified
 *   again before writing.
 *
 * How the descriptor is verified, per platform:
 * - Linux (with /proc): `/proc/self/fd/N` names the file the kernel holds, and `/proc/self/fd/D/name` resolves
 *   `name` inside the directory held as D (the `openat` Node lacks). The check is exact: no race is left.
 * - Elsewhere (macOS, the BSDs, Linux without /proc): the descriptor's device and inode must equal those of the
 *   path's real path, itself inside a root. This narrows the race to a double swap in a few microseconds, but does
 *   not close it, and creation goes through the path. Windows has no O_NOFOLLOW: links are caught by the realpath
 *   check only.
 */
import { constants, existsSync, type Stats } from "node:fs";
import { mkdir, open, readlink, realpath, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isWithin } from "./path-confinement.js";

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

/** True where `/proc/self/fd` gives exact, race-free verification (Linux with /proc mounted). */
export const EXACT_FD_PATHS = process.platform === "linux" && existsSync("/proc/self/fd");

/** Why an opened descriptor was refused. */
export type OpenRefusal = "outside_roots" | "not_a_regular_file" | "not_a_directory";

/** The descriptor opened is not one the host may use; `reason` says why, `real` where it really is (if known). */
export class ConfinedOpenError extends Error {
  constructor(
    readonly reason: OpenRefusal,
    readonly real: string | undefined,
    readonly stats?: Stats,
  ) {
    super(`refused: ${reason}${real === undefined ? "" : ` (${real})`}`);
    this.name = "ConfinedOpenError";
  }
}

/** A verified open file: its handle, where it really is, and its `fstat`. */
export interface ConfinedFile {
  handle: FileHandle;
  real: string;
  stats: Stats;
}

/** The real path of what `handle` holds (Linux: from /proc; elsewhere: the realpath of `path`, if same inode). */
async function realPathOf(handle: FileHandle, path: string, stats: Stats): Promise<string | undefined> {
  if (EXACT_FD_PATHS) {
    const link = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    return link === undefined || !link.startsWith("/") || link.endsWith(" (deleted)") ? undefined : link;
  }
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return undefined;
  const now = await stat(real).catch(() => undefined);
  return now !== undefined && now.dev === stats.dev && now.ino === stats.ino ? real : undefined;
}

/** Verifies a freshly opened descriptor: inside a root, of the expected type. Closes it and throws otherwise. */
async function verify(
  handle: FileHandle,
  path: string,
  roots: readonly string[],
  kind: "file" | "directory",
): Promise<ConfinedFile> {
  try {
    const stats = await handle.stat();
    const real = await realPathOf(handle, path, stats);
    if (real === undefined || !roots.some((root) => isWithin(root, real)))
      throw new ConfinedOpenError("outside_roots", real);
    if (kind === "file" && !stats.isFile()) throw new ConfinedOpenError("not_a_regular_file", real, stats);
    if (kind === "directory" && !stats.isDirectory()) throw new ConfinedOpenError("not_a_directory", real, stats);
    return { handle, real, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Opens the existing file at `path` (`mode` "read" or "write"; never truncating, never creating) and verifies it
 * lies inside `roots` (real paths) and is a regular file. Open errors (ENOENT, ELOOP for a final symlink, EISDIR,
 * ENXIO for a FIFO without a reader or a socket) propagate as system errors.
 */
export async function openExisting(
  path: string,
  roots: readonly string[],
  mode: "read" | "write",
): Promise<ConfinedFile> {
  const flags = (mode === "read" ? constants.O_RDONLY : constants.O_WRONLY) | NOFOLLOW | NONBLOCK;
  return verify(await open(path, flags), path, roots, "file");
}

/** The path that names `name` inside the directory held by `dir` (Linux), or inside `dirPath` (elsewhere). */
function inside(dir: ConfinedFile, dirPath: string, name: string): string {
  return EXACT_FD_PATHS ? `/proc/self/fd/${dir.handle.fd}/${name}` : join(dirPath, name);
}

/** Opens the directory `path` (no final symlink) and verifies it lies inside `roots`. */
async function openDirectory(path: string, roots: readonly string[]): Promise<ConfinedFile> {
  return verify(await open(path, constants.O_RDONLY | DIRECTORY | NOFOLLOW), path, roots, "directory");
}

/**
 * Opens the directory `path`, creating it and its missing parents (each inside the verified descriptor of its
 * parent, never through a path that could be swapped), and verifies it lies inside `roots`. `path` must lie below
 * one of the roots, which must exist. The caller closes the handle.
 */
export async function openOrCreateDirectory(path: string, roots: readonly string[]): Promise<ConfinedFile> {
  try {
    return await openDirectory(path, roots);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || dirname(path) === path) throw error;
  }
  const parent = await openOrCreateDirectory(dirname(path), roots);
  try {
    const name = basename(path);
    await mkdir(inside(parent, dirname(path), name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    return await verify(
      await open(inside(parent, dirname(path), name), constants.O_RDONLY | DIRECTORY | NOFOLLOW),
      path,
      roots,
      "directory",
    );
  } finally {
    await parent.handle.close();
  }
}

/**
 * Creates the new file `path` for writing (O_EXCL: EEXIST when it appeared meanwhile) inside its parent's verified
 * descriptor, then verifies the new descriptor. If the new file turns out to be outside (a parent moved away), it is
 * removed again and the call throws.
 */
export async function createNew(path: string, roots: readonly string[]): Promise<ConfinedFile> {
  const parent = await openOrCreateDirectory(dirname(path), roots);
  try {
    const target = inside(parent, dirname(path), basename(path));
    const handle = await open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW | NONBLOCK,
      0o666,
    );
    try {
      return await verify(handle, path, roots, "file");
    } catch (error) {
      await unlink(target).catch(() => {});
      throw error;
    }
  } finally {
    await parent.handle.close();
  }
}
