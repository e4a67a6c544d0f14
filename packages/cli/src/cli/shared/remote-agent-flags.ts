/**
 * The flags for a remote agent that `acp exec`, `acp chat` and `acp connect` share: `--token T` or `--token-file FILE`
 * (default: the `ACP_TOKEN` environment variable; a token on the command line is seen by every user of the machine),
 * `--header "Name: value"` (repeatable) and `--profile auto|websocket|http`. With `--agent URL` they make the
 * `AgentSpec` `openAgentEndpoint` connects with. Errors are `UsageError`s (exit 2).
 */
import { isAgentUrl, type AgentSpec } from "@acpkit/sdk/node";
import type { RemoteProfile } from "@acpkit/sdk/remote";
import { readTokenFile } from "../../apps/shared/token-file.js";
import { TOKEN_ENV } from "../../apps/shared/token-hint.js";
import { UsageError } from "./usage-error.js";

/** The values of `--profile`. */
export const REMOTE_PROFILES: readonly RemoteProfile[] = ["auto", "websocket", "http"];
/** The programs' WebSocket ping interval toward a remote agent (acp connect's `--ping-interval` default too). */
export const REMOTE_PING_INTERVAL_MS = 15_000;

export { TOKEN_ENV, withTokenHint } from "../../apps/shared/token-hint.js";

/** The flags, as given. */
export interface RemoteAgentFlags {
  token: string | undefined;
  /** `--token-file`: the file the token is read from (its first line), when the spec is made. */
  tokenFile?: string;
  /** `Name: value` lines, checked. */
  headers: string[];
  /** `--profile`; undefined: auto (WebSocket, else Streamable HTTP). */
  profile?: RemoteProfile;
}

/** The flags' help lines. */
export const REMOTE_AGENT_USAGE = remoteAgentUsage("a remote agent (--agent URL)");

/** The flags' help lines, for `what` (`acp connect` has no --agent: its URL is its argument). */
export function remoteAgentUsage(what: string): string {
  return `  --token T                bearer token of ${what}; default: $${TOKEN_ENV}. On a command line every user
                           of this machine sees it (ps): prefer $${TOKEN_ENV} or --token-file
  --token-file FILE        read that token from FILE (its first line; keep the file mode 600)
  --header "Name: value"   an HTTP header for ${what} (repeatable)
  --profile P              a remote agent's transport: auto (default: WebSocket, else Streamable HTTP) |
                           websocket | http`;
}

/** What each flag wants, for "needs a value" errors. */
export const REMOTE_AGENT_HINTS: Readonly<Record<string, string>> = {
  "--token": "the server's bearer token (--token-file FILE or $ACP_TOKEN keep it out of ps)",
  "--token-file": "the file holding the server's bearer token, e.g. --token-file ~/.acp-token",
  "--header": 'a header line, e.g. --header "X-Team: blue"',
  "--profile": REMOTE_PROFILES.join(" | "),
};

export function noRemoteAgentFlags(): RemoteAgentFlags {
  return { token: undefined, headers: [] };
}

const TOKEN_SOURCES_CONTRADICT = "--token and --token-file contradict each other: give one";

/** Sets `flag` to `value` when it is one of these flags; false when it is not. Throws `UsageError` on a bad value. */
export function setRemoteAgentFlag(flags: RemoteAgentFlags, flag: string, value: string): boolean {
  if (flag === "--token") {
    if (value === "") throw new UsageError(`--token needs a non-empty value: ${REMOTE_AGENT_HINTS["--token"]}`);
    if (flags.tokenFile !== undefined) throw new UsageError(TOKEN_SOURCES_CONTRADICT);
    flags.token = value;
    return true;
  }
  if (flag === "--token-file") {
    if (value === "") throw new UsageError(`--token-file needs a file name: ${REMOTE_AGENT_HINTS["--token-file"]}`);
    if (flags.token !== undefined) throw new UsageError(TOKEN_SOURCES_CONTRADICT);
    flags.tokenFile = value;
    return true;
  }
  if (flag === "--header") {
    parseHeader(value);
    flags.headers.push(value);
    return true;
  }
  if (flag === "--profile") {
    if (!(REMOTE_PROFILES as readonly string[]).includes(value))
      throw new UsageError(`--profile must be one of ${REMOTE_PROFILES.join(", ")}; got "${value}"`);
    flags.profile = value as RemoteProfile;
    return true;
  }
  return false;
}

/** `Name: value` as a pair. Throws `UsageError` for anything that is not a valid header line. */
export function parseHeader(line: string): [string, string] {
  const colon = line.indexOf(":");
  const name = colon === -1 ? "" : line.slice(0, colon).trim();
  if (colon === -1 || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) {
    throw new UsageError(`--header expects "Name: value" with a valid header name, got "${line}"`);
  }
  const value = line.slice(colon + 1).trim();
  if (/[\r\n\0]/.test(value)) throw new UsageError(`--header ${name}: the value may not contain line breaks`);
  return [name, value];
}

/**
 * The remote agent `agent` names, when it is a URL (undefined for a command line). Without `--token`, the token
 * comes from `--token-file` (read now; a file other users may read is said through `note`), else `ACP_TOKEN`.
 * `--token`/`--header` without a URL agent is a usage error: they would be ignored.
 */
export function remoteAgentSpec(
  agent: string | undefined,
  flags: RemoteAgentFlags,
  env: NodeJS.ProcessEnv = process.env,
  note: (text: string) => void = (text) => process.stderr.write(`acp: ${text}\n`),
): Extract<AgentSpec, { url: string }> | undefined {
  if (!isAgentUrl(agent)) {
    if (
      flags.token !== undefined ||
      flags.tokenFile !== undefined ||
      flags.headers.length > 0 ||
      flags.profile !== undefined
    ) {
      throw new UsageError(
        "--token, --token-file, --header and --profile are for a remote agent: give its URL with " +
          "--agent http(s)://HOST/acp or ws(s)://HOST/acp",
      );
    }
    return undefined;
  }
  const headers: Record<string, string> = {};
  for (const line of flags.headers) {
    const [name, value] = parseHeader(line);
    headers[name] = value;
  }
  const token =
    flags.token ??
    (flags.tokenFile === undefined
      ? env[TOKEN_ENV] || undefined
      : readTokenFile(flags.tokenFile, note, (message) => new UsageError(message)));
  return {
    url: agent!.trim(),
    ...(token === undefined ? {} : { token }),
    ...(flags.headers.length > 0 ? { headers } : {}),
    ...(flags.profile === undefined ? {} : { profile: flags.profile }),
    // As acp connect: a WebSocket server gone silent mid-turn (stopped, cut off without a FIN) ends the run
    // within two pings instead of holding it until the turn's --timeout, or forever in acp chat.
    pingIntervalMs: REMOTE_PING_INTERVAL_MS,
  };
}
/**
 * Checks the value of `--agent`: a command line, or the URL of a remote agent. A URL of another scheme (`ftp://`,
 * `file://`) is neither: run as a command it would fail with "not found", so it is refused saying which schemes work.
 * Throws `UsageError`.
 */
export function checkAgentValue(value: string): void {
  if (value.trim() === "")
    throw new UsageError(
      '--agent needs a non-empty value: the agent\'s command line, quoted, e.g. --agent "npx my-agent --acp"',
    );
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value.trim())?.[1];
  if (scheme !== undefined && !/^(https?|wss?)$/i.test(scheme))
    throw new UsageError(
      `--agent ${value}: ${scheme}:// is not a way to reach an agent. ` +
        "Give the URL of a remote agent (http://, https://, ws:// or wss://) or the command line of a local one",
    );
}

/**
 * The value after `flag` at `argv[index]`: refused when it is missing, or when it is one of the command's own options
 * (`--agent --verbose` forgot the agent; the option must not be swallowed as its value). Throws `UsageError`.
 */
export function flagValue(
  argv: readonly string[],
  index: number,
  flag: string,
  isOption: (word: string) => boolean,
  hint: string,
): string {
  const next = argv[index];
  if (next === undefined) throw new UsageError(`${flag} needs a value: ${hint}`);
  if (isOption(next.split("=")[0]!))
    throw new UsageError(`${flag} needs a value, but ${next} follows it, which is an option: ${hint}`);
  return next;
}
