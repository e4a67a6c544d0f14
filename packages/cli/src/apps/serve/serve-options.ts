/**
 * `acp serve` flags, parsed into `ServeOptions`, with errors that name the flag and say what to do.
 */
import { isLoopbackHost } from "@acpkit/sdk/node";

export const SERVE_USAGE = `Usage: acp serve [options]

Puts a stdio ACP agent on the network: Streamable HTTP and WebSocket at http(s)://HOST:PORT/acp, one agent process
per client connection. Prints the URL (and the token, when it made one) on stdout; logs connections on stderr.
SIGTERM or Ctrl-C stops accepting, cancels running turns, stops every agent and exits 0.

Options:
  --agent "<cmd>"          the agent's command line (default: the acpkit reference agent, acp agent)
  --cwd DIR                the agents' working directory (default: the current directory)
  --host HOST              address to bind (default 127.0.0.1; 0.0.0.0 or :: for every interface)
  --port PORT              port (default 8765; 0 picks a free one)
  --token-file FILE        read the bearer token clients must send from FILE (its first line)
  --token TOKEN            the token on the command line: every user of this machine sees it (ps); prefer
                           --token-file or $ACP_TOKEN (default: $ACP_TOKEN, else a random one, printed)
  --insecure-no-token      serve without a token: any local process or user can run the agent as you; on a
                           non-loopback --host it is refused unless --allow-insecure is given too
  --allow-insecure         with --insecure-no-token: really serve a non-loopback address without a token
  --cert FILE --key FILE   serve HTTPS/WSS (HTTP/2 with HTTP/1.1 fallback) with this PEM certificate and key
  --http1                  with --cert: HTTP/1.1 only
  --h2c                    without --cert: also accept cleartext HTTP/2 (prior knowledge) on the same port
  --allow-origin ORIGIN    a web origin (https://app.example.com) whose pages may connect; repeatable, or "any"
                           (needs a token: refused with --insecure-no-token)
  --allow-host HOST        a Host name to answer to besides loopback and the bound address; repeatable, or "any"
                           (turns off the DNS-rebinding check: needs a token as well)
  --allow-stdio-mcp        let clients name stdio MCP servers (commands the agent runs here, as you); the default
                           on loopback, refused (-32602) otherwise
  --refuse-stdio-mcp       refuse client-named stdio MCP servers on loopback too
  --path PATH              the endpoint path (default /acp)
  --max-connections N      open connections at most, one agent process each (default 64)
  --idle-timeout MS        how long an HTTP client may be gone before its agent is stopped (default 30000)
  --max-body-bytes N       largest POST body (default 16777216)
  --body-timeout MS        how long a POST body may take to arrive (default 30000; then 408)
  --headers-timeout MS     how long a socket without the token has to send its request headers (default 10000)
  --max-unauthenticated N  sockets without the token held (default 256, at most an eighth of the descriptor
                           limit); past it the oldest is closed, once it had a second, to make room for a newcomer
  --max-unauthenticated-per-address N
                           the same per remote address (default 64), held while over half the sockets
                           above are taken by more than one address: until then one address (a proxy, or a
                           backend connecting for many users) may connect that many at once
  --grace MS               how long running turns get to end after the cancel at shutdown (default 2000)
  --cluster URL            be a node of the cluster kept in this PostgreSQL database (postgres://user@host/db, or
                           $ACP_CLUSTER): any node answers any request of any connection, and a connection whose
                           node dies is adopted by another; the reference agent keeps its sessions there too
                           (see docs/cluster.md). Adds /readyz for load balancers and /metrics (behind the token)
  --lease MS               with --cluster: how long a node's hold on its connections lasts unrenewed; a dead
                           node's connections are adopted within 1.25 x this (default 5000)
  --node-name NAME         with --cluster: a name put before this node's random id (logs, metrics)
  --drain MS               with --cluster: on SIGTERM, how long running turns get to finish before the node hands
                           its connections over to the other nodes (default 30000)
  --no-share               turn shared sessions off (on by default: clients with the token can session/attach to
                           a live session as controller or observer; acp sessions URL lists them;
                           see docs/shared-sessions.md)
  --verbose                also log the agents' stderr (prefixed by connection)
  --exit-with-parent       stop (as on SIGTERM) when the process that started acp serve goes away; on by
                           default under npm (npx acp serve), whose shell does not pass SIGTERM on
  -h, --help               print this help

What is safe to expose: see docs/remote-agents.md. The agent runs with this machine's permissions for whoever has
the token; keep it on loopback or behind TLS, and give the token only to people you would give a shell.
`;

/** What `acp serve` was asked to do. */
export interface ServeOptions {
  agent: string | undefined;
  cwd: string | undefined;
  host: string;
  port: number;
  token: string | undefined;
  /** `--token-file`: read by `runServe`. */
  tokenFile: string | undefined;
  insecureNoToken: boolean;
  /** With `insecureNoToken`: allow it on a non-loopback host. */
  allowInsecure: boolean;
  cert: string | undefined;
  key: string | undefined;
  http1: boolean;
  h2c: boolean;
  allowOrigins: string[] | "any";
  allowHosts: string[] | "any" | undefined;
  path: string;
  maxConnections: number;
  idleTimeoutMs: number;
  maxBodyBytes: number;
  bodyTimeoutMs: number | undefined;
  headersTimeoutMs: number | undefined;
  maxUnauthenticated: number | undefined;
  maxUnauthenticatedPerAddress: number | undefined;
  /** `--allow-stdio-mcp` / `--refuse-stdio-mcp`; undefined: allowed on loopback only. */
  stdioMcp: "allow" | "refuse" | undefined;
  graceMs: number;
  verbose: boolean;
  /** Stop when the parent process goes away (always watched under npm). */
  exitWithParent: boolean;
  /** Shared sessions (session/attach); on unless --no-share. */
  share: boolean;
  help: boolean;
  /** The cluster's database (`--cluster` or $ACP_CLUSTER): never printed, its password masked in errors. */
  cluster: string | undefined;
  leaseMs: number;
  nodeName: string | undefined;
  drainMs: number;
}

/** A command-line mistake: printed, exit code 2. */
export class ServeUsageError extends Error {
  override readonly name = "ServeUsageError";
}

const VALUE_FLAGS = new Set([
  "--agent",
  "--cwd",
  "--host",
  "--port",
  "--token",
  "--token-file",
  "--cert",
  "--key",
  "--allow-origin",
  "--allow-host",
  "--path",
  "--max-connections",
  "--idle-timeout",
  "--max-body-bytes",
  "--grace",
  "--cluster",
  "--lease",
  "--node-name",
  "--drain",
  "--body-timeout",
  "--headers-timeout",
  "--max-unauthenticated",
  "--max-unauthenticated-per-address",
]);
const BOOLEAN_FLAGS = new Set([
  "--insecure-no-token",
  "--allow-insecure",
  "--http1",
  "--h2c",
  "--verbose",
  "--allow-stdio-mcp",
  "--refuse-stdio-mcp",
  "--exit-with-parent",
  "--no-share",
  "--help",
  "-h",
]);

function positiveInteger(flag: string, text: string, allowZero = false): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new ServeUsageError(
      `${flag} must be a ${allowZero ? "non-negative" : "positive"} whole number, got "${text}"`,
    );
  }
  return value;
}

/** Parses `acp serve`'s arguments (without the `serve`). Throws `ServeUsageError`. */
export function parseServeArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): ServeOptions {
  const options: ServeOptions = {
    agent: undefined,
    cwd: undefined,
    host: "127.0.0.1",
    port: 8765,
    token: env.ACP_TOKEN || undefined,
    tokenFile: undefined,
    insecureNoToken: false,
    allowInsecure: false,
    cert: undefined,
    key: undefined,
    http1: false,
    h2c: false,
    allowOrigins: [],
    allowHosts: undefined,
    path: "/acp",
    maxConnections: 64,
    idleTimeoutMs: 30_000,
    maxBodyBytes: 16 * 1024 * 1024,
    bodyTimeoutMs: undefined,
    headersTimeoutMs: undefined,
    maxUnauthenticated: undefined,
    maxUnauthenticatedPerAddress: undefined,
    stdioMcp: undefined,
    graceMs: 2000,
    verbose: false,
    exitWithParent: false,
    share: true,
    help: false,
    cluster: env.ACP_CLUSTER || undefined,
    leaseMs: 5000,
    nodeName: undefined,
    drainMs: 30_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq !== -1 ? arg.slice(0, eq) : arg;
    if (BOOLEAN_FLAGS.has(flag)) {
      if (flag !== arg) throw new ServeUsageError(`${flag} takes no value`);
      if (flag === "--insecure-no-token") options.insecureNoToken = true;
      else if (flag === "--allow-insecure") options.allowInsecure = true;
      else if (flag === "--http1") options.http1 = true;
      else if (flag === "--h2c") options.h2c = true;
      else if (flag === "--verbose") options.verbose = true;
      else if (flag === "--exit-with-parent") options.exitWithParent = true;
      else if (flag === "--allow-stdio-mcp" || flag === "--refuse-stdio-mcp") {
        const value = flag === "--allow-stdio-mcp" ? "allow" : "refuse";
        if (options.stdioMcp !== undefined && options.stdioMcp !== value)
          throw new ServeUsageError("--allow-stdio-mcp and --refuse-stdio-mcp contradict each other: give one");
        options.stdioMcp = value;
      } else if (flag === "--no-share") options.share = false;
      else options.help = true;
      continue;
    }
    if (!VALUE_FLAGS.has(flag))
      throw new ServeUsageError(`unknown argument "${arg}" (acp serve --help lists the options)`);
    const value = flag !== arg ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ServeUsageError(`${flag} needs a value`);
    // `--token --verbose` forgot the token: the option must not become its value (a token "--verbose", served).
    if (flag === arg && isServeOption(value))
      throw new ServeUsageError(
        `${flag} needs a value, but ${value} follows it, which is an option (write ${flag}=VALUE for a value that ` +
          `starts with "--")`,
      );
    setValue(options, flag, value);
  }
  if ((options.cert === undefined) !== (options.key === undefined))
    throw new ServeUsageError("--cert and --key go together: give both, or neither");
  if (options.h2c && options.cert !== undefined)
    throw new ServeUsageError("--h2c is for cleartext; with --cert, HTTP/2 is already on");
  if (options.http1 && options.cert === undefined)
    throw new ServeUsageError("--http1 only makes sense with --cert (cleartext is HTTP/1.1 unless --h2c)");
  let fromFlag = false;
  for (const arg of argv) if (arg === "--token" || arg.startsWith("--token=")) fromFlag = true;
  if (options.tokenFile !== undefined) {
    if (fromFlag) throw new ServeUsageError("--token and --token-file contradict each other: give one");
    options.token = undefined; // read from the file, not $ACP_TOKEN
  }
  const hasToken = options.token !== undefined || options.tokenFile !== undefined;
  if (options.insecureNoToken && hasToken) {
    throw new ServeUsageError(
      "--insecure-no-token and a token (--token, --token-file or $ACP_TOKEN) contradict each other",
    );
  }
  if (options.insecureNoToken && options.allowOrigins === "any") {
    throw new ServeUsageError(
      "refusing --allow-origin any without a token: any web page you open could then run the agent, and every " +
        "command it can, as you. Drop --insecure-no-token (a token is generated), or list the origins you trust.",
    );
  }
  if (options.insecureNoToken && options.allowHosts === "any") {
    throw new ServeUsageError(
      "refusing --allow-host any without a token: with the Host check off, a web page can reach this server " +
        "through a DNS name that points at it (DNS rebinding) and run the agent as you. Drop --insecure-no-token, " +
        "or list the host names (--allow-host NAME).",
    );
  }
  if (options.allowInsecure && !options.insecureNoToken) {
    throw new ServeUsageError(
      "--allow-insecure only goes with --insecure-no-token (without it, a token is required anyway)",
    );
  }
  if (options.insecureNoToken && !options.allowInsecure && !isLoopbackHost(options.host)) {
    throw new ServeUsageError(
      `refusing to serve ${options.host} without a token: anyone who can reach that address could run the ` +
        `agent as you. ` +
        ("Drop --insecure-no-token (a token is generated and printed), bind to 127.0.0.1, or add " +
          "--allow-insecure if that network is yours alone."),
    );
  }
  if (options.cluster !== undefined && !/^postgres(?:ql)?:\/\//i.test(options.cluster))
    throw new ServeUsageError("--cluster needs a PostgreSQL URL: postgres://user:password@host:port/database");
  if (options.cluster === undefined && argv.some((arg) => /^--(lease|node-name|drain)(=|$)/.test(arg)))
    throw new ServeUsageError("--lease, --node-name and --drain only go with --cluster");
  if (!options.path.startsWith("/")) throw new ServeUsageError(`--path must start with "/", got "${options.path}"`);
  return options;
}

/** Whether `word` (or its part before "=") is one of `acp serve`'s options. */
function isServeOption(word: string): boolean {
  const name = word.split("=")[0]!;
  return VALUE_FLAGS.has(name) || BOOLEAN_FLAGS.has(name);
}

function setValue(options: ServeOptions, flag: string, value: string): void {
  switch (flag) {
    case "--agent":
      if (value.trim() === "")
        throw new ServeUsageError('--agent needs a command line, e.g. --agent "my-agent --stdio"');
      options.agent = value;
      return;
    case "--cwd":
      options.cwd = value;
      return;
    case "--host":
      options.host = value;
      return;
    case "--port":
      options.port = positiveInteger(flag, value, true);
      if (options.port > 65535) throw new ServeUsageError(`--port must be at most 65535, got ${value}`);
      return;
    case "--token":
      if (value === "") throw new ServeUsageError("--token must not be empty");
      options.token = value;
      return;
    case "--token-file":
      if (value === "") throw new ServeUsageError("--token-file needs a file name");
      options.tokenFile = value;
      return;
    case "--body-timeout":
      options.bodyTimeoutMs = positiveInteger(flag, value);
      return;
    case "--headers-timeout":
      options.headersTimeoutMs = positiveInteger(flag, value);
      return;
    case "--max-unauthenticated":
      options.maxUnauthenticated = positiveInteger(flag, value);
      return;
    case "--max-unauthenticated-per-address":
      options.maxUnauthenticatedPerAddress = positiveInteger(flag, value);
      return;
    case "--cert":
      options.cert = value;
      return;
    case "--key":
      options.key = value;
      return;
    case "--allow-origin":
      options.allowOrigins =
        value === "any" ? "any" : options.allowOrigins === "any" ? "any" : [...options.allowOrigins, value];
      return;
    case "--allow-host":
      options.allowHosts =
        value === "any" ? "any" : options.allowHosts === "any" ? "any" : [...(options.allowHosts ?? []), value];
      return;
    case "--path":
      options.path = value;
      return;
    case "--max-connections":
      options.maxConnections = positiveInteger(flag, value);
      return;
    case "--idle-timeout":
      options.idleTimeoutMs = positiveInteger(flag, value);
      return;
    case "--max-body-bytes":
      options.maxBodyBytes = positiveInteger(flag, value);
      return;
    case "--grace":
      options.graceMs = positiveInteger(flag, value, true);
      return;
    case "--cluster":
      options.cluster = value;
      return;
    case "--lease":
      options.leaseMs = positiveInteger(flag, value);
      if (options.leaseMs < 200) throw new ServeUsageError(`--lease must be at least 200 ms, got ${value}`);
      return;
    case "--node-name":
      if (!/^[\w.-]{1,40}$/.test(value))
        throw new ServeUsageError(`--node-name takes letters, digits, "-", "_" and "." (40 at most), got "${value}"`);
      options.nodeName = value;
      return;
    case "--drain":
      options.drainMs = positiveInteger(flag, value, true);
      return;
  }
}
