/**
 * The file system host's errors: every refusal a `RequestError` that says what was wrong and what to do, with a
 * `data.reason` a program can test. What the agent asked for and may not have is -32602 (invalid params); a
 * missing file or unknown session -32002 (resource not found); only real I/O failures are -32603.
 */
import type { Stats } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { ErrorCodes, RequestError } from "../../jsonrpc/request-error.js";
import { ConfinedOpenError } from "./confined-open.js";
import { fromSystemError } from "./path-confinement.js";

/** What a non-regular file is, in words. */
export function fileKind(stats: Stats | undefined): string {
  if (stats === undefined) return "not a regular file";
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

function invalid(path: string, reason: string, message: string, extra: Record<string, unknown> = {}): RequestError {
  return new RequestError(ErrorCodes.invalidParams, `Invalid params: ${message}`, { path, reason, ...extra });
}

/** -32602 `not_a_regular_file`: only regular files are read or written. */
export function notRegular(path: string, stats: Stats | undefined): RequestError {
  if (stats?.isDirectory()) return invalid(path, "is_directory", `${path} is a directory, not a file`);
  return invalid(
    path,
    "not_a_regular_file",
    `${path} is ${fileKind(stats)}; the client only reads and writes regular files`,
  );
}

/** -32602 `hard_linked`: the file has other names, which may lie outside the roots. */
export function hardLinked(path: string, links: number, what: "read" | "write"): RequestError {
  return invalid(
    path,
    "hard_linked",
    `refusing to ${what} ${path}: it has ${links} hard links, so it is also reachable under other names that ` +
      `may lie outside ` +
      (`the session's roots${what === "write" ? " (writing it would change the file there too)" : ""}. Remove ` +
        `the extra links, or `) +
      'configure the client to allow it (FileSystemHost option hardLinks: "allow").',
    { links },
  );
}

/** -32602 `too_large`. */
export function tooLarge(path: string, bytes: number | undefined, max: number): RequestError {
  const message =
    bytes === undefined
      ? `${path} is over the ${max} byte limit of the client: it grew past it while being read (its size was ` +
        `under the limit when opened)`
      : `${path} is ${bytes} bytes, over the ${max} byte limit of the client`;
  return invalid(path, "too_large", message, bytes === undefined ? {} : { bytes });
}

/** -32602 `denied`: the client's gate (its permission policy) refused the access. */
export function denied(path: string, what: string, reason: string): RequestError {
  return invalid(
    path,
    "denied",
    `the client refused to ${what} ${path}: ${reason}. Ask the user first (session/request_permission naming ` +
      `this path), or run the client with a policy that allows it.`,
  );
}

/** -32002 for a session the host has no roots for. */
export function unknownSession(sessionId: string, path: unknown): RequestError {
  return new RequestError(
    ErrorCodes.resourceNotFound,
    `Resource not found: no session ${sessionId} on this client (it serves files and terminals only for the ` +
      `sessions it created or loaded)`,
    { sessionId, path },
  );
}

/**
 * What an ELOOP from opening `real` (O_NOFOLLOW) was: the final component is a symlink to nothing (`dangling`: the
 * confinement check saw no file there, so it never changed), a symlink to something (`swapped`: the check would have
 * resolved it, so it was swapped in), no symlink now but its parent resolves (`swapped-back`: a symlink was there at
 * the open), or a loop in the parent (`loop`: a real symlink loop).
 */
async function eloopCause(real: string): Promise<"dangling" | "swapped" | "swapped-back" | "loop"> {
  const stats = await lstat(real).catch(() => undefined);
  if (stats?.isSymbolicLink()) {
    const target = await stat(real).then(
      () => "exists",
      (error: NodeJS.ErrnoException) => error.code,
    );
    if (target === "ENOENT") return "dangling";
    return target === "ELOOP" ? "loop" : "swapped";
  }
  const parentLoops = await realpath(dirname(real)).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === "ELOOP",
  );
  return parentLoops ? "loop" : "swapped-back";
}

/** Maps any failure while reading or writing `path` (at its real path `real`) to a `RequestError`. */
export async function ioError(
  error: unknown,
  path: string,
  real: string,
  what: "read" | "write",
): Promise<RequestError> {
  if (error instanceof RequestError) return error;
  if (error instanceof ConfinedOpenError) {
    if (error.reason === "outside_roots") {
      const where = error.real === undefined ? "" : ` (${error.real})`;
      return invalid(
        path,
        "outside_roots",
        `${path} changed while being opened and led outside the session's roots${where}; refused`,
      );
    }
    if (error.reason === "not_a_directory")
      return invalid(path, "not_a_directory", `a component of ${path} is not a directory`);
    return notRegular(path, error.stats);
  }
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ENOENT" && what === "read") return RequestError.resourceNotFound(path);
  if (code === "ENXIO") return notRegular(path, await lstat(real).catch(() => undefined)); // a FIFO without a reader, a socket
  if (code === "ELOOP") {
    const cause = await eloopCause(real);
    if (cause === "dangling")
      return invalid(
        path,
        "dangling_symlink",
        `${path} is a symlink to nothing (its target does not exist); refused: a final symlink is never followed`,
      );
    if (cause === "swapped")
      return invalid(path, "symlink", `${path} changed into a symlink while being opened; refused`);
    if (cause === "swapped-back")
      return invalid(path, "symlink", `${path} was a symlink when it was opened (it changed meanwhile); refused`);
  }
  const mapped = fromSystemError(error, path);
  if (mapped !== undefined) return mapped;
  const detail = (error as Error)?.message ?? String(error);
  return RequestError.internalError({ path, code }, `could not ${what} ${path}: ${detail}`);
}
