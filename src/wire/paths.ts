/**
 * Path checks on the wire, without a file system (browser-safe): is a path absolute, and is it inside one of a
 * session's roots. Lexical only: `..` and `.` segments are resolved, symlinks are not (the client checks those on
 * the descriptor it opens). POSIX paths, and Windows paths with a drive letter or a UNC prefix.
 *
 * Spec: paths in ACP MUST be absolute; the session's root set (`cwd` and `additionalDirectories`) SHOULD bound the
 * tools' file system operations. https://agentclientprotocol.com/protocol/session-setup#working-directory
 */

/** True for `/x`, `C:\x`, `C:/x` and `\\server\share\x`. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

function isWindows(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/** Segments of an absolute path with `.` and `..` resolved; Windows paths compared case-insensitively. */
export function pathSegments(path: string): string[] {
  const windows = isWindows(path);
  const parts = (windows ? path.replace(/\\/g, "/") : path).split("/");
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > (windows ? 1 : 0)) out.pop();
      continue;
    }
    out.push(windows ? part.toLowerCase() : part);
  }
  return out;
}

/** True when absolute `path` is `root` or below it (lexically). */
export function isInside(path: string, root: string): boolean {
  if (!isAbsolutePath(path) || !isAbsolutePath(root) || isWindows(path) !== isWindows(root)) return false;
  const p = pathSegments(path);
  const r = pathSegments(root);
  if (p.length < r.length) return false;
  for (let i = 0; i < r.length; i++) if (p[i] !== r[i]) return false;
  return true;
}

/** True when `path` is inside at least one of `roots`. */
export function isInsideAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isInside(path, root));
}
