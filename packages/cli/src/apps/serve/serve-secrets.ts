/**
 * The token of `acp serve` kept out of sight: read from `--token-file` (its first line; a file others may read is
 * noted on stderr), and scrubbed from the environment the agents get, so an agent (or anything it runs, or whoever
 * reads its `/proc/PID/environ`) never sees it.
 */
import { readFileSync, statSync } from "node:fs";
import { ServeUsageError } from "./serve-options.js";

/** Reads the token from `path`: its first line, trimmed. Throws `ServeUsageError` when it cannot be read or is empty. */
export function readTokenFile(path: string, note: (text: string) => void): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ServeUsageError(
      `--token-file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const token = (text.split(/\r?\n/, 1)[0] ?? "").trim();
  if (token === "") throw new ServeUsageError(`--token-file ${path}: its first line is empty; put the token there`);
  if (/\s/.test(token)) throw new ServeUsageError(`--token-file ${path}: the token must not contain spaces`);
  try {
    if ((statSync(path).mode & 0o077) !== 0)
      note(`--token-file ${path} may be read by other users of this machine: chmod 600 it`);
  } catch {
    // Read above; a stat failure now changes nothing.
  }
  return token;
}

/** The environment for the agents: this one without `ACP_TOKEN` and without any variable holding the token. */
export function agentEnvironment(env: NodeJS.ProcessEnv, token: string | undefined): NodeJS.ProcessEnv {
  const scrubbed: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name === "ACP_TOKEN" || (token !== undefined && value === token)) continue;
    scrubbed[name] = value;
  }
  return scrubbed;
}
