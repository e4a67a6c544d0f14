/**
 * Where acpkit keeps per-user data (the embedded session store): the platform's usual place, overridable.
 * Linux and other Unixes: `$XDG_DATA_HOME/<app>` or `~/.local/share/<app>` (XDG Base Directory spec: a relative
 * `XDG_DATA_HOME` is invalid and ignored); macOS: `~/Library/Application Support/<app>`; Windows: `%APPDATA%\<app>`.
 * `ACPKIT_DATA_DIR` overrides all of them.
 * @see https://specifications.freedesktop.org/basedir-spec/latest/
 */
import { homedir } from "node:os";
import path from "node:path";

/** The environment variable that overrides the data directory. */
export const DATA_DIR_ENV = "ACPKIT_DATA_DIR";

/** Inputs of `userDataDir`, injectable for tests; default to the running process's. */
export interface DataDirOptions {
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  homedir?: string;
}

/** The per-user data directory of `app` (default "acpkit"). Not created: callers create it when they first write. */
export function userDataDir(app = "acpkit", options: DataDirOptions = {}): string {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = options.homedir ?? homedir();
  const override = env[DATA_DIR_ENV];
  if (override) return override;
  if (platform === "win32") return path.win32.join(env.APPDATA || path.win32.join(home, "AppData", "Roaming"), app);
  if (platform === "darwin") return path.posix.join(home, "Library", "Application Support", app);
  const xdg = env.XDG_DATA_HOME;
  return path.posix.join(xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, ".local", "share"), app);
}
