/**
 * Path confinement: is a path inside one of a session's roots (its `cwd` and `additionalDirectories`), once
 * `..` segments and symlinks are resolved? Shared by the file system host and the terminal host.
 *
 * Contract: a path is inside a root when its real path (symlinks resolved; for a path that does not exist yet,
 * the real path of its longest existing ancestor plus the rest) equals the root's real path or lies below it,
 * compared segment by segment, so `/home/me/proj-evil` is not inside `/home/me/proj`. Callers must then use
 * the returned real path, never the path they were given, so the file touched is the file checked.
 *
 * This check alone is not safe against races (a directory swapped for a symlink between the check and the use):
 * the hosts therefore verify the descriptor they actually opened (see `confined-open.ts`).
 *
 * Refusals are -32602 with a `data.reason`: `relative_path`, `nul_byte`, `outside_roots`, `symlink_loop`,
 * `name_too_long`, `not_a_directory` (a path component is a file).
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";

/**
 * The error code for "outside the session's roots": -32602 (invalid params), the agent asked for something
 * it may not have. `data` is `{ path, reason: "outside_roots", roots }`.
 */
export const OUTSIDE_ROOTS_CODE = ErrorCodes.invalidParams;

/** The session's roots, given a session id: its `cwd` first, then its `additionalDirectories`. */
export type RootsProvider = (sessionId: string) => readonly string[] | undefined;

/** True when `candidate` equals `root` or lies below it, segment-wise (both absolute and normalized). */
export function isWithin(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  if (rel === "") return true;
  return !isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`);
}

/**
 * The real path of `path` (absolute): symlinks resolved for the longest existing prefix, the missing rest
 * appended as is. Loops and other errors besides a missing entry propagate.
 */
export async function realpathLongestExisting(path: string): Promise<string> {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(current.slice(parent.length).replace(/^[/\\]+/, ""));
      current = parent;
    }
  }
}

/** What `confinePath` found. */
export interface ConfinedPath {
  /** The path as given, normalized (`..` resolved lexically). */
  requested: string;
  /** The real path to use. */
  real: string;
  /** The (real) root it lies in. */
  root: string;
}

/**
 * Checks that `path` lies inside one of `roots` and returns its real path.
 *
 * Throws `RequestError`s that say what went wrong: -32602 for a relative path; -32002 (`sessionNotFound`) when
 * the session has no roots; -32602 with `reason: "outside_roots"` for a path outside them (after `..` and
 * symlinks are resolved).
 */
export async function confinePath(
  path: string,
  roots: readonly string[] | undefined,
  what = "path",
): Promise<ConfinedPath> {
  if (!roots || roots.length === 0)
    throw new RequestError(ErrorCodes.resourceNotFound, "Resource not found: no such session, or it has no roots", {
      path,
    });
  if (typeof path !== "string" || !isAbsolute(path)) {
    throw RequestError.invalidParams(
      { path, reason: "relative_path" },
      `${what} must be an absolute path, got ${JSON.stringify(path)}`,
    );
  }
  if (path.includes("\0"))
    throw RequestError.invalidParams({ path, reason: "nul_byte" }, `${what} contains a NUL byte`);
  const requested = resolve(path);
  let real: string;
  try {
    real = await realpathLongestExisting(requested);
  } catch (error) {
    throw fromSystemError(error, path) ?? error;
  }
  for (const root of roots) {
    const realRoot = await realpathLongestExisting(resolve(root));
    if (isWithin(realRoot, real)) return { requested, real, root: realRoot };
  }
  throw outsideRoots(path, roots, real !== requested ? real : undefined);
}

function outsideRoots(path: string, roots: readonly string[], real?: string): RequestError {
  const through = real === undefined ? "" : ` (it resolves to ${real})`;
  return new RequestError(
    OUTSIDE_ROOTS_CODE,
    `Invalid params: ${path} is outside the session's roots${through}; allowed: ${roots.join(", ")}`,
    { path, reason: "outside_roots", roots: [...roots] },
  );
}

/**
 * Maps a system error met at `path` (by its code) to a -32602 `RequestError` with a reason: a symlink loop, a name
 * or path too long, a path component that is not a directory, a directory where a file was expected. Undefined for
 * other errors.
 */
export function fromSystemError(error: unknown, path: string): RequestError | undefined {
  const invalid = (reason: string, message: string) =>
    new RequestError(ErrorCodes.invalidParams, `Invalid params: ${message}`, { path, reason });
  switch ((error as NodeJS.ErrnoException)?.code) {
    case "ELOOP":
      return invalid("symlink_loop", `${path} leads through a symlink loop (too many levels of symbolic links)`);
    case "ENAMETOOLONG":
      return invalid(
        "name_too_long",
        `${path} is too long a path, or has a component too long a name, for this file system`,
      );
    case "ENOTDIR":
      return invalid("not_a_directory", `a component of ${path} is not a directory`);
    case "EISDIR":
      return invalid("is_directory", `${path} is a directory, not a file`);
    default:
      return undefined;
  }
}
