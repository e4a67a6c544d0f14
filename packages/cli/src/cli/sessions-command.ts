/**
 * `acp sessions URL`: the live sessions of an `acp serve` (shared sessions on), read from `GET URL/sessions` with
 * the server's token: each session, whether a turn runs, its queue, who is attached (role, transport). `--json`
 * prints the server's answer as is.
 */
import { readTokenFile } from "../apps/shared/token-file.js";

export const sessionsUsage = `acp sessions: the live sessions of an acp serve, with who is attached

Usage:
  acp sessions [--token TOKEN | --token-file FILE] [--json] URL     URL: http(s)://HOST:PORT/acp

Options:
  --token TOKEN       the server's bearer token (default: $ACP_TOKEN); a session's share token is not enough.
                      On a command line every user of this machine sees it (ps): prefer $ACP_TOKEN or --token-file
  --token-file FILE   read the token from FILE (its first line; keep the file mode 600)
  --json              print the server's JSON answer
  -h, --help          this help

Join one with: acp chat --attach SESSION URL (controller) or acp chat --observe SESSION URL (read-only).
`;

interface Listed {
  sessionId: string;
  turnRunning: boolean;
  hostConnected: boolean;
  queue: { running: unknown; queued: unknown[] };
  pendingPermissions: number;
  updates: number;
  /** The cluster node that runs it (`acp serve --cluster`). */
  node?: string;
  participants: { clientId: string; name?: string; role: string; transport: string }[];
}

/** The options, never taken as another one's value. */
const OPTIONS: ReadonlySet<string> = new Set(["--token", "--token-file", "--json", "-h", "--help"]);

/** Runs `acp sessions`; resolves with the exit code. */
export async function sessionsCommand(args: readonly string[]): Promise<number> {
  let token = process.env.ACP_TOKEN;
  let tokenFlag: string | undefined;
  let json = false;
  let url: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-h" || arg === "--help") {
      process.stdout.write(sessionsUsage);
      return 0;
    }
    if (arg === "--json") json = true;
    else if (arg === "--token" || arg === "--token-file") {
      if (args[i + 1] === undefined || OPTIONS.has(args[i + 1]!)) {
        process.stderr.write(`acp sessions: ${arg} needs a value (acp sessions --help)\n`);
        return 2;
      }
      if (tokenFlag !== undefined && tokenFlag !== arg) {
        process.stderr.write("acp sessions: --token and --token-file contradict each other: give one\n");
        return 2;
      }
      tokenFlag = arg;
      const value = args[++i]!;
      if (arg === "--token") token = value;
      else {
        try {
          token = readTokenFile(
            value,
            (text) => process.stderr.write(`acp sessions: ${text}\n`),
            (m) => new Error(m),
          );
        } catch (error) {
          process.stderr.write(`acp sessions: ${(error as Error).message}\n`);
          return 2;
        }
      }
    } else if (!arg.startsWith("-") && url === undefined) url = arg;
    else {
      process.stderr.write(`acp sessions: unknown argument ${arg} (acp sessions --help)\n`);
      return 2;
    }
  }
  if (url === undefined || !/^https?:\/\//i.test(url)) {
    process.stderr.write("acp sessions: give the server's URL, http(s)://HOST:PORT/acp (acp sessions --help)\n");
    return 2;
  }
  const listing = `${url.replace(/\/+$/, "")}/sessions`;
  let response: Response;
  try {
    response = await fetch(listing, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  } catch (error) {
    process.stderr.write(`acp sessions: cannot reach ${listing}: ${(error as Error).message}\n`);
    return 1;
  }
  const text = await response.text();
  if (!response.ok) {
    const hint =
      response.status === 404
        ? " (is it an acp serve with shared sessions on, and is the URL its endpoint?)"
        : response.status === 401
          ? " (give the server's token: --token or $ACP_TOKEN)"
          : "";
    process.stderr.write(`acp sessions: ${listing} answered ${response.status}: ${text.trim()}${hint}\n`);
    return 1;
  }
  if (json) {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return 0;
  }
  const { sessions } = JSON.parse(text) as { sessions: Listed[] };
  if (sessions.length === 0) process.stdout.write("no live sessions\n");
  for (const session of sessions) {
    const state = session.turnRunning ? "turn running" : "idle";
    const queued = session.queue.queued.length > 0 ? `, ${session.queue.queued.length} queued` : "";
    const asking = session.pendingPermissions > 0 ? `, ${session.pendingPermissions} permission(s) waiting` : "";
    const host = session.hostConnected ? "" : ", its opener is gone";
    const node = session.node === undefined ? "" : `, on node ${session.node}`;
    process.stdout.write(
      `${session.sessionId}  ${state}${queued}${asking}${host}, ${session.updates} updates${node}\n`,
    );
    for (const who of session.participants)
      process.stdout.write(
        `  ${who.role.padEnd(10)} ${(who.name ?? "?").padEnd(20)} ${who.transport.padEnd(9)} ${who.clientId}\n`,
      );
  }
  return 0;
}
