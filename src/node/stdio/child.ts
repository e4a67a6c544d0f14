/**
 * A spawned agent's stdin/stdout as an ACP `Stream`: what a client talks to an agent over.
 *
 * Spec: https://agentclientprotocol.com/protocol/transports — the client launches the agent as a subprocess
 * and exchanges newline-delimited JSON-RPC over its stdin and stdout.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import type { Stream } from "../../jsonrpc/link.js";
import { nodeNdJsonStream, type NodeNdJsonOptions } from "./node-bytes.js";

/** Options of `childProcessStream`: those of `ndJsonStream` (`maxMessageBytes`, ...), and `stderrLines`. */
export interface ChildProcessStreamOptions extends NodeNdJsonOptions {
  /** The child's last stderr lines, quoted by the `AgentExitedError` when it dies (see `StderrTail`). */
  stderrLines?: () => readonly string[];
  /**
   * After the child exited: whether another process may still hold its output pipes (a descendant left behind).
   * Default: assume so. While false, the pipes are read to their natural end (see `closeOutputAfterExit`).
   */
  othersMayHoldOutput?: () => boolean;
}

/**
 * The child's stdin (we write) and stdout (we read) as a `Stream` with a fast `[LINK]`.
 *
 * - The child must be spawned with `stdio: ["pipe", "pipe", ...]`; otherwise this throws a `TypeError`.
 * - The child exiting ends its stdout: the link's receiver gets `closed()`. A spawn failure (`error` on the
 *   child, e.g. ENOENT) ends it with `closed(error)`. EPIPE on stdin (the child died) ends the link too, and
 *   never crashes this process: error listeners stay attached to the child and its pipes.
 * - `close()` flushes and ends the child's stdin (the agent sees EOF) and stops reading its stdout.
 *   It does not kill the child.
 * - Once the child exited, its stdout is read for `EXIT_DRAIN_MS` more, then closed if a descendant may hold it
 *   (a daemon it started): such a process is never waited for, and the stream ends.
 */
export function childProcessStream(child: ChildProcess, options: ChildProcessStreamOptions = {}): Stream {
  const { stdin, stdout } = child;
  if (!stdin || !stdout) {
    throw new TypeError(
      'childProcessStream needs the child\'s stdin and stdout as pipes: spawn it with stdio: ["pipe", "pipe", ' +
        '"inherit"].',
    );
  }
  const { stderrLines, othersMayHoldOutput, ...ndjson } = options;
  closeOutputAfterExit(child, othersMayHoldOutput);
  return nodeNdJsonStream(stdout, stdin, {
    ...ndjson,
    endOutput: true,
    releaseInput: "destroy",
    errorEmitters: [child],
    explainEnd: () => exitExplanation(child, stderrLines),
  });
}

/** How long the child's output pipes are still read after it exited (what it wrote last is in them). */
const EXIT_DRAIN_MS = 500;

/**
 * After the child's exit, gives its stdout and stderr `EXIT_DRAIN_MS` to end; if they have not, and they are being
 * read (not paused by backpressure, whose data is the child's own), and `othersMayHold()` says a process other than
 * the child may hold their write ends (a descendant it left behind), destroys them. Otherwise checks again later.
 */
export function closeOutputAfterExit(child: ChildProcess, othersMayHold: () => boolean = () => true): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = () =>
    [child.stdout, child.stderr].filter((stream) => stream && !stream.readableEnded && !stream.destroyed);
  const check = () => {
    const streams = open();
    if (streams.length === 0) return;
    if (streams.some((stream) => stream!.readableFlowing === false) || !othersMayHold()) {
      timer = setTimeout(check, EXIT_DRAIN_MS);
      timer.unref();
      return;
    }
    for (const stream of streams) stream!.destroy();
  };
  const start = () => {
    timer = setTimeout(check, EXIT_DRAIN_MS);
    timer.unref();
    child.once("close", () => clearTimeout(timer));
  };
  if (child.exitCode !== null || child.signalCode !== null) start();
  else child.once("exit", start);
}

/** How long to wait, after the child's stdout ended, for its exit status (to say why the connection ended). */
const EXIT_WAIT_MS = 250;

/**
 * Resolves with an `AgentExitedError` when the child exited with a non-zero code or a signal (waiting briefly for
 * the exit after its stdout ended), or with nothing for a clean exit or a child still running.
 */
function exitExplanation(
  child: ChildProcess,
  stderrLines?: () => readonly string[],
): Promise<AgentExitedError | undefined> {
  const explain = async () => {
    if (child.signalCode === null && (child.exitCode === null || child.exitCode === 0)) return undefined;
    if (stderrLines) await stderrDrained(child);
    const lines = stderrLines?.() ?? [];
    if (child.signalCode !== null) return new AgentExitedError(child.pid, null, child.signalCode, lines);
    return new AgentExitedError(child.pid, child.exitCode, null, lines);
  };
  if (child.exitCode !== null || child.signalCode !== null) return explain();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(undefined);
    }, EXIT_WAIT_MS);
    const onExit = () => {
      clearTimeout(timer);
      resolve(explain());
    };
    child.once("exit", onExit);
  });
}

/** Waits (briefly) until the child's piped stderr has been read to its end, so its last lines are known. */
function stderrDrained(child: ChildProcess): Promise<void> {
  const stderr = child.stderr;
  if (!stderr || stderr.readableEnded || stderr.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stderr.off("end", done);
      stderr.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, EXIT_WAIT_MS);
    stderr.once("end", done);
    stderr.once("close", done);
  });
}

/**
 * The agent process ended the conversation by dying: the code or signal says how, and `stderr` holds its last
 * stderr lines when they were captured (quoted in the message).
 */
export class AgentExitedError extends Error {
  constructor(
    readonly pid: number | undefined,
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderr: readonly string[] = [],
  ) {
    super(
      (signal !== null
        ? `the agent process (pid ${pid}) was killed by ${signal}`
        : `the agent process (pid ${pid}) exited with code ${exitCode}`) +
        (stderr.length > 0 ? `; it printed:\n${stderr.map((line) => `  | ${line}`).join("\n")}` : ""),
    );
    this.name = "AgentExitedError";
  }
}

/** Options of `spawnAgentStream`. */
export interface SpawnAgentOptions extends ChildProcessStreamOptions {
  /** Working directory of the agent. */
  cwd?: string;
  /** Environment of the agent. Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Where the agent's stderr (its log) goes. Default "inherit". */
  stderr?: "inherit" | "pipe" | "ignore";
  /** Passed to `spawn` as is, under the options above. */
  spawnOptions?: SpawnOptions;
}

/**
 * Spawns `command args` and returns its stdio as a `Stream`, with the child. Minimal: no shell, no process
 * group; kill the child yourself when done (closing the stream only ends its stdin).
 */
export function spawnAgentStream(
  command: string,
  args: readonly string[],
  options: SpawnAgentOptions = {},
): { stream: Stream; child: ChildProcess } {
  const child = spawn(command, args, {
    ...options.spawnOptions,
    cwd: options.cwd ?? options.spawnOptions?.cwd,
    env: options.env ?? options.spawnOptions?.env ?? process.env,
    stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
  });
  return { stream: childProcessStream(child, options), child };
}
