/**
 * The token of `acp serve` kept out of sight: read from `--token-file` (its first line; a file others may read is
 * noted on stderr), and scrubbed from the environment the agents get, so an agent (or anything it runs, or whoever
 * reads its `/proc/PID/environ`) never sees it.
 */
import { readTokenFile as readTokenFileAs } from "../shared/token-file.js";
import { ServeUsageError } from "./serve-options.js";

/** Reads the token from `path`: its first line, trimmed. Throws `ServeUsageError` when it cannot be read or is empty. */
export function readTokenFile(path: string, note: (text: string) => void): string {
  return readTokenFileAs(path, note, (message) => new ServeUsageError(message));
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
