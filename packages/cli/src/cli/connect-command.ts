/**
 * `acp connect URL [--token T] [--header "Name: value"]... [--profile auto|websocket|http]`: argument parsing for
 * the stdio <-> remote bridge (src/apps/connect). An editor runs it as its agent command.
 */
import { runBridge } from "../apps/connect/bridge.js";
import {
  flagValue,
  noRemoteAgentFlags,
  REMOTE_AGENT_HINTS,
  remoteAgentUsage,
  remoteAgentSpec,
  setRemoteAgentFlag,
} from "./shared/remote-agent-flags.js";
import { UsageError } from "./shared/usage-error.js";

export const connectUsage = `acp connect: use a remote ACP agent as a stdio agent

Usage:
  acp connect URL [options]     URL: http(s)://HOST/acp or ws(s)://HOST/acp

Newline-delimited JSON-RPC on stdin goes to the remote agent, its messages come out on stdout, unchanged; an editor
that starts stdio agents runs this as its agent command. Exits 0 when stdin ends, 1 when the remote goes away
(with --reconnect: when it cannot be reached again) or does not answer in time, with the reason on stderr.
"connected" is said once the remote answered.

Options:
${remoteAgentUsage("the remote agent")}
  --connect-timeout S      seconds the server has to accept the connection and answer the first message
                           (default 30)
  --request-timeout S      seconds each HTTP request has for its answer (status and headers; default 60)
  --ping-interval S        WebSocket: ping the server this often; one that answers nothing by the next ping is gone
                           (exit 1); Streamable HTTP: an event stream that carried keep-alive comments and then
                           nothing for three intervals is broken (resumed, else exit 1). Default 15, 0 turns it off
  --reconnect              when the remote drops, reconnect and reattach the editor's sessions (session/resume or
                           session/load); a turn in flight fails, each session gets a notice, stderr logs each step
  --reconnect-attempts N   attempts before giving up (implies --reconnect; default 10; backoff from 0.25 s up
                           to 10 s between them)
  -h, --help               this help
`;

/** The options that take a value (as `--flag value` or `--flag=value`). */
const VALUE_FLAGS: ReadonlySet<string> = new Set([
  "--token",
  "--token-file",
  "--header",
  "--profile",
  "--connect-timeout",
  "--request-timeout",
  "--ping-interval",
  "--reconnect-attempts",
]);

/** What each value wants, for "needs a value" errors. */
const VALUE_HINTS: Readonly<Record<string, string>> = {
  ...REMOTE_AGENT_HINTS,
  "--connect-timeout": "seconds, e.g. --connect-timeout 10",
  "--request-timeout": "seconds, e.g. --request-timeout 60",
  "--ping-interval": "seconds, e.g. --ping-interval 15 (0: off)",
  "--reconnect-attempts": "a whole number, e.g. --reconnect-attempts 5",
};

/** Whether `word` is one of `acp connect`'s options (never taken as another option's value). */
function isConnectOption(word: string): boolean {
  return VALUE_FLAGS.has(word) || word === "--reconnect" || word === "--help" || word === "-h";
}

/** Runs `acp connect` with its arguments; resolves with the exit code. */
export async function connectCommand(args: readonly string[]): Promise<number> {
  const flags = noRemoteAgentFlags();
  let url: string | undefined;
  let connectTimeoutMs: number | undefined;
  let requestTimeoutMs: number | undefined;
  let pingIntervalMs: number | undefined;
  let reconnect = false;
  let reconnectAttempts = 10;
  try {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === "-h" || arg === "--help") {
        process.stdout.write(connectUsage);
        return 0;
      }
      if (!arg.startsWith("--")) {
        if (url !== undefined) throw new UsageError(`one URL only; got "${url}" and "${arg}"`);
        url = arg;
        continue;
      }
      const eq = arg.indexOf("=");
      const flag = eq > 0 ? arg.slice(0, eq) : arg;
      if (flag === "--reconnect") {
        if (flag !== arg) throw new UsageError(`--reconnect takes no value (got "${arg}")`);
        reconnect = true;
        continue;
      }
      if (!VALUE_FLAGS.has(flag)) throw new UsageError(`unknown option ${flag} (acp connect --help lists them)`);
      let value: string;
      if (flag !== arg) value = arg.slice(eq + 1);
      else value = flagValue(args, ++i, flag, isConnectOption, VALUE_HINTS[flag] ?? "acp connect --help");
      if (setRemoteAgentFlag(flags, flag, value)) continue;
      if (flag === "--connect-timeout" || flag === "--request-timeout") {
        const seconds = Number(value);
        if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 2_000_000)
          throw new UsageError(`${flag} takes a positive number of seconds; got "${value}"`);
        if (flag === "--connect-timeout") connectTimeoutMs = Math.max(1, Math.round(seconds * 1000));
        else requestTimeoutMs = Math.max(1, Math.round(seconds * 1000));
      } else if (flag === "--ping-interval") {
        const seconds = Number(value);
        if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 0 || seconds > 2_000_000)
          throw new UsageError(`--ping-interval takes a number of seconds (0 turns it off); got "${value}"`);
        pingIntervalMs = Math.round(seconds * 1000);
      } else {
        const attempts = Number(value);
        if (!Number.isInteger(attempts) || attempts < 1)
          throw new UsageError(`--reconnect-attempts takes a whole number >= 1; got "${value}"`);
        reconnectAttempts = attempts;
        reconnect = true;
      }
    }
    if (url === undefined) throw new UsageError("no URL: acp connect http(s)://HOST/acp (or ws(s)://...)");
    const spec = remoteAgentSpec(url, flags, process.env, (text) => process.stderr.write(`acp connect: ${text}\n`));
    if (spec === undefined) throw new UsageError(`"${url}" is not an http(s):// or ws(s):// URL`);
    const code = await runBridge({
      ...spec,
      ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
      ...(requestTimeoutMs ? { requestTimeoutMs } : {}),
      ...(pingIntervalMs === undefined ? {} : { pingIntervalMs }),
      ...(reconnect ? { reconnect: { maxAttempts: reconnectAttempts } } : {}),
    });
    // A request to a server that never answers may still hold a socket: once stdout is flushed, leave.
    process.stdout.write("", () => process.exit(code));
    return code;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`acp connect: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
