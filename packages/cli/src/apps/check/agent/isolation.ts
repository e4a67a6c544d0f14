/**
 * Each scenario's agents get their own HOME and per-user directories, so `acp check agent` never writes into the
 * user's data (an agent's session store, caches, logs) and no state leaks from one scenario, or one run, into
 * another. The directory is created here and removed by the runner when the scenario ends. `--env` replaces any
 * of these (e.g. `--env HOME=$HOME` for an agent that reads its login from the real home).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** The environment variables that point an agent at `home`: HOME, the XDG base directories, acpkit's data dir. */
export function isolatedHome(home: string, platform: NodeJS.Platform = process.platform): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    // The reference agent (and anything built on @acpkit/sdk/node's userDataDir) prefers this one.
    ACPKIT_DATA_DIR: join(home, ".local", "share", "acpkit"),
  };
  if (platform === "win32")
    Object.assign(env, {
      USERPROFILE: home,
      APPDATA: join(home, "AppData", "Roaming"),
      LOCALAPPDATA: join(home, "AppData", "Local"),
    });
  mkdirSync(home, { recursive: true });
  for (const [name, dir] of Object.entries(env)) if (name !== "ACPKIT_DATA_DIR") mkdirSync(dir, { recursive: true });
  return env;
}
