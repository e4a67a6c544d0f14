/**
 * The agent launcher: starts an ACP agent as a subprocess in its own process group and process tree, captures its
 * stderr, gives `initialize` a deadline whose error quotes what the agent printed, and stops it without leaving
 * orphans: everything the agent started ends with `stop()` or with this process, even what left the process group
 * (see `process-tree.ts` for how, and where that stops).
 *
 * Spec: https://agentclientprotocol.com/protocol/transports — the client launches the agent as a subprocess
 * and exchanges newline-delimited JSON-RPC over its stdin and stdout; the agent MAY log to stderr.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import type { Stream } from "../../jsonrpc/link.js";
import { ConnectionClosedError, LocalError } from "../../jsonrpc/local-errors.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type { InitializeRequest, InitializeResponse } from "../../protocol/index.js";
import { AgentExitedError, childProcessStream, type ChildProcessStreamOptions } from "../stdio/child.js";
import { splitCommandLine } from "./command-line.js";
import { childExited, terminateGroup, trackTree, untrackTree, waitUntil, type ExitStatus } from "./process-group.js";
import { ProcessTree } from "./process-tree.js";
import { spawnInTree } from "./spawn-in-tree.js";
import { StderrTail } from "./stderr-tail.js";

/** Options of `launchAgent`. Give `command` (a command line) or `argv`. */
export interface LaunchAgentOptions extends Omit<ChildProcessStreamOptions, "stderrLines" | "othersMayHoldOutput"> {
  /** A command line, split into argv like a POSIX shell would split words, but never run by a shell. */
  command?: string;
  /** The program and its arguments, used as is. */
  argv?: readonly string[];
  /** Working directory of the agent. Default: this process's. */
  cwd?: string;
  /** Environment of the agent. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Added to `env` (or to this process's environment). */
  extraEnv?: Record<string, string>;
  /** Deadline of `initializeWithDeadline`. Default 30000. */
  startupTimeoutMs?: number;
  /** In `stop()`: how long to wait for the agent to exit after its stdin closed, before SIGTERM. Default 500. */
  stdinGraceMs?: number;
  /** In `stop()`: how long SIGTERM has to work before SIGKILL. Default 3000. */
  stopGraceMs?: number;
  /** How many stderr lines to keep for error messages. Default 20. */
  stderrTailLines?: number;
  /** Called with each stderr line of the agent (its log). Never printed by the library. */
  onStderrLine?: (line: string) => void;
  /** Hears about the agent's life (and its stderr lines, at debug level). Default: silent. */
  logger?: Logger;
  /**
   * The agent's stdout: this socket (a connected one, whose other end the caller reads its own way, e.g. with
   * `onread`) instead of a pipe the launcher reads. The launcher closes its copy once the agent runs; `child.stdout`
   * is then null and `stream` cannot be used. For proxies such as `acp tap`. Default: a pipe.
   */
  stdout?: Socket;
}

/** A running agent. */
export interface LaunchedAgent {
  /**
   * The agent's stdin/stdout as a `Stream`, for `new ClientSideConnection(toClient, stream)`. Reading it throws a
   * `TypeError` when the launcher was given the agent's stdout (`options.stdout`).
   */
  readonly stream: Stream;
  /** The agent process (the leader of its process group). */
  readonly child: ChildProcess;
  /** Its pid, which is also its process group id. */
  readonly pid: number;
  /** The argv it was started with. */
  readonly argv: readonly string[];
  /** The deadline `initializeWithDeadline` uses by default. */
  readonly startupTimeoutMs: number;
  /** The last lines the agent printed on stderr (oldest first). */
  stderrTail(): string[];
  /** Resolves when the agent process has exited (members of its group may outlive it until `stop()`). */
  readonly exited: Promise<ExitStatus>;
  /**
   * Stops the agent: closes its stdin (a well-behaved agent exits on end of input), waits `stdinGraceMs`,
   * SIGTERMs its whole process tree (group, tagged descendants, cgroup), and SIGKILLs it after `stopGraceMs`.
   * Resolves with the agent's exit status once no live process of the tree is left. Idempotent.
   */
  stop(): Promise<ExitStatus>;
  /**
   * Stops the agent now: SIGKILL to its whole process tree at once (no end of input, no SIGTERM first), then what
   * `stop()` does to wait for it. For a second interrupt, when the user will not wait.
   */
  kill(): Promise<ExitStatus>;
}

/** The agent could not be started (no such program, not executable, bad cwd). */
export class AgentSpawnError extends Error {
  constructor(
    readonly argv: readonly string[],
    cause: unknown,
  ) {
    super(
      `could not start the agent ${JSON.stringify(argv[0])}: ` +
        `${(cause as Error)?.message ?? String(cause)}${adviceFor(cause)}`,
      { cause },
    );
    this.name = "AgentSpawnError";
  }
}

/** What to do about a spawn failure, by its error code. */
function adviceFor(cause: unknown): string {
  switch ((cause as NodeJS.ErrnoException)?.code) {
    case "ENOENT":
      return ". Check that the command is installed and on PATH, or give its absolute path.";
    case "EACCES":
      return (
        ". The file is not executable: fix its permissions, or run it through its interpreter (e.g. node " +
        "script.js)."
      );
    default:
      return "";
  }
}

/**
 * Starts an agent in its own process group (`detached: true`, no shell) with its stdio piped: stdin/stdout carry
 * the protocol, stderr is captured (see `stderrTail()`) and forwarded to `onStderrLine` and the logger, never to
 * this process's stdout. Resolves once the process is running; rejects with an `AgentSpawnError` if it could not
 * be started. The group is SIGKILLed if this process exits while the agent runs (see `process-group.ts`).
 */
export async function launchAgent(options: LaunchAgentOptions): Promise<LaunchedAgent> {
  const argv = resolveArgv(options);
  const logger = options.logger ?? silentLogger;
  const tree = new ProcessTree();
  const env = { ...(options.env ?? process.env), ...options.extraEnv };
  const child = spawnInTree(tree, argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ["pipe", options.stdout ?? "pipe", "pipe"],
    windowsHide: true,
  });
  // The agent has its own copy of a given stdout now; this process's copy would keep the caller's end from ever
  // seeing the end of the agent's output.
  options.stdout?.destroy();
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error: NodeJS.ErrnoException) => {
        // spawn says ENOENT for a missing cwd too: say which one is missing.
        const badCwd = error.code === "ENOENT" && options.cwd !== undefined && !existsSync(options.cwd);
        reject(
          new AgentSpawnError(argv, badCwd ? new Error(`its working directory ${options.cwd} does not exist`) : error),
        );
      });
    });
  } catch (error) {
    tree.release();
    throw error;
  }
  const pid = child.pid!;
  trackTree(tree);
  logger.debug("agent started", { pid, argv });

  const tail = new StderrTail({
    maxLines: options.stderrTailLines ?? 20,
    onLine: (line) => {
      logger.debug("agent stderr", { pid, line });
      options.onStderrLine?.(line);
    },
  });
  child.stderr!.on("data", (chunk: Buffer) => tail.push(chunk));
  child.stderr!.on("end", () => tail.end());
  child.stderr!.on("error", () => {});

  const {
    command: _c,
    argv: _a,
    cwd: _d,
    env: _e,
    extraEnv: _x,
    startupTimeoutMs: _s,
    stdinGraceMs: _g,
    stopGraceMs: _t,
    stderrTailLines: _l,
    onStderrLine: _o,
    logger: _lg,
    stdout: ownStdout,
    ...streamOptions
  } = options;
  const stream =
    ownStdout === undefined
      ? childProcessStream(child, {
          ...streamOptions,
          stderrLines: () => tail.lines(),
          othersMayHoldOutput: () => tree.alive(),
        })
      : undefined;

  const exited = childExited(child).then((status) => {
    logger.debug("agent exited", { pid, ...status });
    // Processes that outlived the agent keep its tree tracked until stop() or this process's exit.
    if (!tree.alive()) {
      tree.release();
      untrackTree(tree);
    }
    return status;
  });

  let stopping: Promise<ExitStatus> | undefined;
  const stop = (): Promise<ExitStatus> => {
    stopping ??= (async () => {
      const stdin = child.stdin;
      if (stdin && !stdin.destroyed && !stdin.writableEnded) stdin.end();
      // Give the agent itself a moment to leave on end of input; whatever is left of its group is then signalled.
      await waitUntil(() => child.exitCode !== null || child.signalCode !== null, options.stdinGraceMs ?? 500);
      const status = await terminateGroup(child, options.stopGraceMs ?? 3000, tree);
      child.stdout?.destroy();
      child.stderr?.destroy();
      logger.debug("agent stopped", { pid, ...status });
      return status;
    })();
    return stopping;
  };

  return {
    get stream(): Stream {
      if (stream === undefined)
        throw new TypeError(
          "launchAgent was given the agent's stdout (options.stdout): read the agent's output from that socket's " +
            "other end; there is no stream",
        );
      return stream;
    },
    child,
    pid,
    argv,
    startupTimeoutMs: options.startupTimeoutMs ?? 30_000,
    stderrTail: () => tail.lines(),
    exited,
    kill: () => {
      tree.signal("SIGKILL");
      if (process.platform === "win32") child.kill("SIGKILL");
      return stop();
    },
    stop,
  };
}

function resolveArgv(options: LaunchAgentOptions): string[] {
  if (options.argv !== undefined && options.command !== undefined)
    throw new TypeError("launchAgent: give either command or argv, not both");
  const argv =
    options.argv !== undefined
      ? [...options.argv]
      : options.command !== undefined
        ? splitCommandLine(options.command)
        : [];
  if (argv.length === 0 || argv[0] === "")
    throw new TypeError("launchAgent: no program to start (give command or argv)");
  return argv;
}

/** `initialize` got no answer before the startup deadline; `stderr` holds what the agent printed. */
export class AgentStartupTimeoutError extends LocalError {
  constructor(
    readonly timeoutMs: number,
    readonly stderr: readonly string[],
  ) {
    super(
      "timeout",
      `the agent did not answer initialize within ${formatDuration(timeoutMs)}; ${describeLines(stderr)}. ` +
        "Check the agent's command line and logs, or raise startupTimeoutMs if it is just slow to start.",
    );
    this.name = "AgentStartupTimeoutError";
  }
}

/** Something that can send `initialize`: a `ClientSideConnection`, or anything shaped like it. */
export interface Initializer {
  initialize(params: InitializeRequest): Promise<InitializeResponse>;
}

/** Options of `initializeWithDeadline`. */
export interface InitializeDeadlineOptions {
  /** Default: the launched agent's `startupTimeoutMs`. */
  timeoutMs?: number;
  /** Stop the agent when the deadline passes. Default true. */
  stopOnTimeout?: boolean;
}

/**
 * Sends `initialize` and waits at most `timeoutMs` for the answer. On the deadline it rejects with an
 * `AgentStartupTimeoutError` quoting the agent's last stderr lines ("the agent did not answer initialize within
 * 30 s; it printed: ...") and stops the agent (unless `stopOnTimeout` is false). If the agent dies first, the
 * `ConnectionClosedError` (whose cause is an `AgentExitedError` naming the code or signal) already quotes them.
 */
export function initializeWithDeadline(
  connection: Initializer,
  params: InitializeRequest,
  launched: Pick<LaunchedAgent, "stderrTail" | "startupTimeoutMs"> & { stop(): Promise<unknown> },
  options: InitializeDeadlineOptions = {},
): Promise<InitializeResponse> {
  const timeoutMs = options.timeoutMs ?? launched.startupTimeoutMs;
  const answer = connection.initialize(params);
  return new Promise<InitializeResponse>((resolve, reject) => {
    const timer = setTimeout(() => {
      answer.catch(() => {});
      reject(new AgentStartupTimeoutError(timeoutMs, launched.stderrTail()));
      if (options.stopOnTimeout ?? true) void launched.stop();
    }, timeoutMs);
    answer.then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(
          error instanceof ConnectionClosedError && !(error.cause instanceof AgentExitedError)
            ? withStderr(error, launched.stderrTail())
            : error,
        );
      },
    );
  });
}

/** A connection that closed before `initialize` was answered, without an exit status: add the stderr lines. */
function withStderr(error: ConnectionClosedError, lines: readonly string[]): Error {
  if (lines.length === 0) return error;
  return new ConnectionClosedError(`${error.detail} before answering initialize; ${describeLines(lines)}`, error.cause);
}

function describeLines(lines: readonly string[]): string {
  return lines.length === 0
    ? "it printed nothing on stderr"
    : `it printed:\n${lines.map((line) => `  | ${line}`).join("\n")}\n`;
}

function formatDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
