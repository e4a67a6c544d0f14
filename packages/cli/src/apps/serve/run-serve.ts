/**
 * `acp serve`: a stdio agent on Streamable HTTP and WebSocket, one agent process per client connection. The URL and a
 * generated token go to stdout (one `key: value` line each, for scripts); connections and problems are logged on
 * stderr. SIGTERM/SIGINT (and SIGHUP): stop accepting, cancel running turns, stop every agent, exit 0; a second
 * signal stops the agents at once. The same stop when its parent goes away, under npm or with --exit-with-parent.
 */
import { startedByNpm, watchParent } from "./parent-watch.js";
import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { splitCommandLine } from "@acpkit/sdk/node";
import type { Logger } from "@acpkit/sdk";
import { defaultAllowedHosts } from "@acpkit/sdk/node";
import { listenAcp, type ListeningAcpServer } from "@acpkit/sdk/node";
import { stdioAgentConnector } from "@acpkit/sdk/node";
import { PostgresServerBackend } from "@acpkit/sdk/node";
import type { ConnectionEvent } from "@acpkit/sdk/remote";
import { insecureNotes } from "./insecure-notes.js";
import { ServeUsageError, type ServeOptions } from "./serve-options.js";
import { agentEnvironment, readTokenFile } from "./serve-secrets.js";

/** Where `acp serve` writes, and which agent it runs when `--agent` is not given. */
export interface ServeIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The default agent's argv (the reference agent, `acp agent`). */
  defaultAgentArgv: readonly string[];
}

const SIGNALS = ["SIGTERM", "SIGINT", "SIGHUP"] as const;

function timestamp(): string {
  return new Date().toISOString().slice(11, 23);
}

function short(connectionId: string | undefined): string {
  return connectionId === undefined ? "--------" : connectionId.slice(0, 8);
}

/** Logs the library's warnings and errors (and info with --verbose) on stderr. */
function stderrLogger(io: ServeIo, verbose: boolean): Logger {
  const line = (level: string, message: string, fields?: Record<string, unknown>) =>
    io.stderr(
      `${timestamp()} ${level} ${message}${fields && Object.keys(fields).length ? ` ${JSON.stringify(fields)}` : ""}\n`,
    );
  return {
    debug: () => {},
    info: (message, fields) => verbose && line("info", message, fields),
    warn: (message, fields) => line("warn", message, fields),
    error: (message, fields) => line("error", message, fields),
  };
}

function describe(event: ConnectionEvent): string {
  const from = event.remoteAddress ? ` from ${event.remoteAddress}` : "";
  if (event.type === "open") return `connection ${short(event.connectionId)} opened (${event.transport})${from}`;
  const why = event.error instanceof Error ? `: ${event.error.message}` : "";
  return (
    `connection ${short(event.connectionId)} closed (${event.reason}${why}) after ` +
    `${(event.durationMs / 1000).toFixed(1)} s`
  );
}

/** Runs until a signal; resolves with the exit code. */
export async function runServe(options: ServeOptions, io: ServeIo): Promise<number> {
  const logger = stderrLogger(io, options.verbose);
  const cwd = options.cwd === undefined ? process.cwd() : resolve(options.cwd);
  if (options.agent !== undefined) checkProgram(options.agent, cwd);
  const tls =
    options.cert === undefined
      ? undefined
      : { cert: readPem(options.cert, "--cert"), key: readPem(options.key!, "--key") };
  const token =
    options.tokenFile === undefined
      ? options.token
      : readTokenFile(options.tokenFile, (text) => io.stderr(`${timestamp()} acp serve: ${text}\n`));
  // The cluster's database URL may hold a password: `ps` shows only the command's name from here on; the reference
  // agent gets the URL in its environment (ACP_STORE), not on its command line, and another agent never gets it.
  if (options.cluster !== undefined) process.title = "acp serve";
  const { ACP_CLUSTER: _cluster, ...serveEnv } = process.env;
  const agentEnv = agentEnvironment(serveEnv, token);
  if (options.cluster !== undefined && options.agent === undefined) {
    agentEnv.ACP_STORE = options.cluster;
    // A session of an agent that died with its node is free again as soon as its connection is adopted.
    agentEnv.ACP_STORE_LEASE = String(options.leaseMs);
  }
  const connector = stdioAgentConnector({
    ...(options.agent === undefined ? { argv: io.defaultAgentArgv } : { command: options.agent }),
    cwd,
    // The token stays here: no agent (nor what it runs) finds it in its environment.
    env: agentEnv,
    logger,
    onStderrLine: options.verbose
      ? (line, connectionId) => io.stderr(`${timestamp()} agent ${short(connectionId)} | ${line}\n`)
      : undefined,
  });
  const backend = options.cluster === undefined ? undefined : await openCluster(options, connector, logger);
  let listening: ListeningAcpServer;
  try {
    listening = await listenAcp({
      ...(backend === undefined ? {} : { backend }),
      agent: connector,
      host: options.host,
      port: options.port,
      path: options.path,
      token,
      insecureNoToken: options.insecureNoToken,
      allowInsecure: options.allowInsecure,
      tls,
      http2: !options.http1,
      h2c: options.h2c,
      allowedOrigins: options.allowOrigins,
      allowedHosts:
        options.allowHosts === undefined || options.allowHosts === "any"
          ? options.allowHosts
          : [...defaultAllowedHosts(options.host), ...options.allowHosts],
      maxConnections: options.maxConnections,
      idleTimeoutMs: options.idleTimeoutMs,
      maxRequestBodyBytes: options.maxBodyBytes,
      ...(options.bodyTimeoutMs === undefined ? {} : { requestBodyTimeoutMs: options.bodyTimeoutMs }),
      ...(options.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: options.headersTimeoutMs }),
      ...(options.maxUnauthenticated === undefined ? {} : { maxUnauthenticatedSockets: options.maxUnauthenticated }),
      ...(options.maxUnauthenticatedPerAddress === undefined
        ? {}
        : { maxUnauthenticatedSocketsPerAddress: options.maxUnauthenticatedPerAddress }),
      ...(options.stdioMcp === undefined ? {} : { stdioMcpServers: options.stdioMcp }),
      closeGraceMs: options.graceMs,
      sharedSessions: options.share,
      logger,
      onConnectionEvent: (event) => io.stderr(`${timestamp()} ${describe(event)}\n`),
    });
  } catch (error) {
    await backend?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new ServeUsageError(
        `port ${options.port} on ${options.host} is in use: pick another with --port (0 picks a free one)`,
      );
    if (code === "EACCES")
      throw new ServeUsageError(
        `not allowed to bind ${options.host}:${options.port}: use a port above 1023, or another --host`,
      );
    if (code === "EADDRNOTAVAIL")
      throw new ServeUsageError(`${options.host} is not an address of this machine: pick another --host`);
    throw error;
  }
  // Listening for signals before telling anyone where we are: a client (or a supervisor) may act at once.
  const stopSignal = new Promise<string>((resolveSignal) => {
    for (const name of SIGNALS) process.once(name, () => resolveSignal(name));
  });
  // Under npm (npx acp serve) a SIGTERM stops at npm's shell: the server notices it was orphaned (./parent-watch.ts).
  const parent = options.exitWithParent || startedByNpm() ? watchParent() : undefined;
  const orphaned = parent?.gone.then(
    (pid) =>
      `its parent process (pid ${pid}) is gone${startedByNpm() ? " (npm's shell does not pass SIGTERM on)" : ""}`,
  );
  // One write, so a reader that saw the URL has the token too.
  io.stdout(
    `url: ${listening.url}\nwebsocket: ` +
      `${listening.webSocketUrl}\n${listening.tokenGenerated ? `token: ${listening.token}\n` : ""}`,
  );
  const agentLine = options.agent ?? "the reference agent (acp agent)";
  io.stderr(
    `${timestamp()} acp serve: ${agentLine} at ` +
      `${listening.url}${listening.token ? " (bearer token required)" : " WITHOUT a token"}\n`,
  );
  if (backend !== undefined)
    io.stderr(
      `${timestamp()} acp serve: cluster node ${listening.server.nodeId} on ${backend.pool.database} ` +
        `(ready: ${listening.url.replace(/\/acp$/, "")}/readyz)\n`,
    );
  if (listening.tokenGenerated)
    io.stderr(`${timestamp()} acp serve: connect with: acp connect ${listening.url} --token <the token above>\n`);
  for (const note of insecureNotes(options, new URL(listening.url).host, listening.token))
    io.stderr(`${timestamp()} acp serve: note: ${note}\n`);

  const signal = await (orphaned === undefined ? stopSignal : Promise.race([stopSignal, orphaned]));
  parent?.stop();
  const force = () => {
    io.stderr(`${timestamp()} acp serve: stopping the agents now (SIGKILL)\n`);
    void connector.killAll();
    void listening.server.close({ graceMs: 0 });
  };
  // Listening for the second signal before saying "again to force": one sent at once must not meet Node's default
  // (which would end the process without stopping the agents).
  for (const name of SIGNALS) process.once(name, force);
  io.stderr(
    `${timestamp()} acp serve: ${signal}: stopping (cancelling running turns, stopping agents; again to force)\n`,
  );
  if (backend !== undefined) {
    io.stderr(`${timestamp()} acp serve: draining: running turns get ${options.drainMs} ms, then other nodes adopt\n`);
    await backend.drain(options.drainMs);
  }
  await listening.close();
  await backend?.close();
  for (const name of SIGNALS) process.off(name, force);
  io.stderr(`${timestamp()} acp serve: stopped\n`);
  return 0;
}

/** Opens the cluster's database (migrating it); a clear error when it cannot be reached. */
async function openCluster(
  options: ServeOptions,
  connector: ReturnType<typeof stdioAgentConnector>,
  logger: Logger,
): Promise<PostgresServerBackend> {
  try {
    return await PostgresServerBackend.open({
      database: { connectionString: options.cluster!, applicationName: "acp serve", logger },
      connector,
      leaseMs: options.leaseMs,
      ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }),
    });
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error)).replaceAll(options.cluster!, "<--cluster>");
    throw new ServeUsageError(
      `cannot join the cluster (--cluster): ${detail}. Check that PostgreSQL runs and the URL (user, password, ` +
        `database) is right; the database must exist (the tables are created on first use).`,
    );
  }
}

/** Fails at startup, not at the first connection, when the agent's program cannot be found or run. */
function checkProgram(command: string, cwd: string): void {
  let argv: string[];
  try {
    argv = splitCommandLine(command);
  } catch (error) {
    throw new ServeUsageError(`--agent: ${(error as Error).message}`);
  }
  const program = argv[0];
  if (program === undefined) throw new ServeUsageError('--agent needs a command line, e.g. --agent "my-agent --stdio"');
  const candidates =
    isAbsolute(program) || program.includes("/")
      ? [resolve(cwd, program)]
      : (process.env.PATH ?? "")
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, program));
  const runnable = candidates.some((candidate) => {
    try {
      return statSync(candidate).isFile() && (accessSync(candidate, constants.X_OK), true);
    } catch {
      return false;
    }
  });
  if (!runnable) {
    throw new ServeUsageError(
      `--agent: cannot run "${program}": ` +
        `${candidates.length > 1 ? "not found on PATH" : "no such executable file"}. Install it, or give its ` +
        `path.`,
    );
  }
}

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ServeUsageError(
      `${flag} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}
