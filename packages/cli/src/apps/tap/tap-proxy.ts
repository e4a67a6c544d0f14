/**
 * `acp tap`: a transparent stdio proxy in front of an agent. The editor starts `acp tap -- <agent command>` instead
 * of the agent; the tap launches the agent (own process group), forwards bytes both ways unchanged and unbuffered
 * (the agent's stderr too; the agent's output, the heavy direction, on a fast path: ./agent-output.ts and
 * ./direct-writer.ts), and hands a copy to its analyzer: a low-priority process that checks every frame against
 * the schema and the protocol's rules from both sides' point of view, reports violations as they are found (stderr,
 * or a report file) and writes the conversation as a cassette. The copy is handed over when the traffic pauses, and
 * at least every 2 s while it flows (./analyzer-feed.ts). The agent's exit code is the tap's; signals the tap gets
 * are passed to the agent; nothing is left behind.
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { launchAgent, signalGroup, type LaunchedAgent } from "@acpkit/sdk/node";
import { waitUntil } from "@acpkit/sdk/node";
import type { Side } from "@acpkit/sdk";
import { analyzerAtFullSpeed, spawnAnalyzer } from "./analyzer-launch.js";
import { AnalyzerFeed } from "./analyzer-feed.js";
import { openAgentOutput } from "./agent-output.js";
import { DirectWriter } from "./direct-writer.js";
import type { AnalyzerOptions } from "./tee-protocol.js";

export interface TapOptions {
  argv: readonly string[];
  /** Write the conversation here as a cassette. */
  tracePath?: string;
  /** Write findings here (one JSON object a line) instead of stderr. */
  reportPath?: string;
  /** No findings on stderr (they still go to the report file). */
  quiet?: boolean;
  /** For the cassette header and messages, e.g. `acp tap`. */
  tool: { name: string; version: string };
  io?: { stdin: Readable; stdout: Writable; stderr: Writable };
  /**
   * Who gets the copy of the traffic instead of the analyzer process (`acp inspect --tap` hands it to its page,
   * which checks and records it there): called after each forwarded write, never able to hold or change the bytes.
   * With it, no analyzer is started and `tracePath`, `reportPath` and `quiet` are not used.
   */
  observer?: TapObserver;
  /** Each line the agent writes on stderr, besides passing it on (for `acp inspect --tap`). */
  onStderr?: (chunk: Buffer) => void;
}

/** A copy of the traffic: the bytes each side wrote, in order, and the end of each side's output. */
export interface TapObserver {
  bytes(from: Side, chunk: Uint8Array): void;
  end(from: Side): void;
}

/** How the agent ended. */
export interface TapExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Thrown when a file the options name cannot be written (`file`), or the agent cannot be started. */
export class TapSetupError extends Error {
  override readonly name = "TapSetupError";
  constructor(message: string, options: { cause?: unknown; file?: string } = {}) {
    super(message, { cause: options.cause });
    this.file = options.file;
  }
  /** The file that could not be written (a usage error); undefined when the agent could not be started. */
  readonly file: string | undefined;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const ANALYZER = fileURLToPath(new URL("./analyzer-main.js", import.meta.url));
/** How long the analyzer may take to finish after the conversation ended. */
const ANALYZER_FINISH_MS = 60_000;

export async function runTap(options: TapOptions): Promise<TapExit> {
  const io = options.io ?? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  for (const path of [options.tracePath, options.reportPath]) {
    if (path === undefined) continue;
    try {
      closeSync(openSync(path, "w"));
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(dirname(resolve(path)));
      throw new TapSetupError(
        missing
          ? `cannot write ${path}: the directory ${dirname(resolve(path))} does not exist ` +
              "(create it, or give another path)"
          : `cannot write ${path}: ${(error as Error).message}`,
        { cause: error, file: path },
      );
    }
  }
  // The fast path for the agent's output (./agent-output.ts), when the tap's stdout is this process's own. Its end
  // stays paused until `fromAgent` is wired below.
  let fromAgent: (chunk: Uint8Array) => boolean = () => false;
  const direct = options.io === undefined ? await openAgentOutput((chunk) => fromAgent(chunk)) : undefined;
  let launched: LaunchedAgent;
  try {
    launched = await launchAgent({
      argv: options.argv,
      cwd: process.cwd(),
      ...(direct ? { stdout: direct.agentEnd } : {}),
    });
  } catch (error) {
    direct?.agentEnd.destroy();
    direct?.tapEnd.destroy();
    throw new TapSetupError((error as Error).message, { cause: error });
  }
  const child = launched.child;
  const agentOutput: Readable = direct?.tapEnd ?? child.stdout!;
  const observer = options.observer;
  const analyzer = observer ? undefined : startAnalyzer(options);
  const sources: Readable[] = [io.stdin, agentOutput];
  const feed = analyzer
    ? new AnalyzerFeed(analyzer.stdin!, {
        pause: () => sources.forEach((source) => source.pause()),
        resume: () => sources.forEach((source) => source.resume()),
      })
    : undefined;
  // Who gets the copy: the caller's observer, or the analyzer (exactly one of them exists).
  const copy: TapObserver = observer ?? feed!;

  // Each piece leaves as it came (libuv reads a busy pipe up to 64 KiB at a time): holding pieces back to write
  // them together cost more than it saved (one more wake-up per burst, and the reader waited for the batch).
  const pipe = (from: Side, input: Readable, output: Writable, end: () => void) => {
    const resume = () => input.resume();
    input.on("data", (chunk: Buffer) => {
      if (!output.write(chunk)) {
        input.pause();
        output.once("drain", resume);
      }
      copy.bytes(from, chunk);
    });
    input.once("end", () => {
      copy.end(from);
      end();
    });
    input.on("error", () => {});
    output.on("error", resume);
  };
  const agentOutputDone = new Promise<void>((resolve) => {
    if (direct) {
      fromAgent = forwardDirect(direct.tapEnd, copy, resolve);
      direct.tapEnd.resume();
    } else pipe("agent", child.stdout!, io.stdout, resolve);
    agentOutput.once("close", () => resolve());
  });
  pipe("client", io.stdin, child.stdin!, () => child.stdin!.end());
  child.stderr!.on("data", (chunk: Buffer) => {
    io.stderr.write(chunk);
    options.onStderr?.(chunk);
  });

  // Being stopped: the analyzer catches up at full speed meanwhile (whoever stops the tap may not wait long).
  const forward = (signal: NodeJS.Signals) => () => {
    void signalGroup(launched.pid, signal);
    if (analyzer !== undefined) analyzerAtFullSpeed(analyzer);
  };
  const handlers = FORWARDED_SIGNALS.map((signal) => [signal, forward(signal)] as const);
  if (!options.io) for (const [signal, handler] of handlers) process.on(signal, handler);
  try {
    const status = await launched.exited;
    await Promise.race([agentOutputDone, new Promise((resolve) => setTimeout(resolve, 1000))]);
    await launched.stop();
    feed?.release();
    if (analyzer) await finishAnalyzer(analyzer);
    return status;
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    io.stdin.pause();
    // A process that left the agent's group may still hold the agent's end: the tap stops reading it anyway.
    direct?.tapEnd.destroy();
    if (analyzer && analyzer.exitCode === null && analyzer.signalCode === null) analyzer.kill("SIGKILL");
  }
}

/**
 * The agent's output on the fast path: each read goes to the tap's stdout (`writer`), then its view to `copy`. The
 * read side pauses while the stdout stream holds what its descriptor refused, and the copy of the end goes last.
 */
function forwardDirect(tapEnd: Readable, copy: TapObserver, done: () => void): (chunk: Uint8Array) => boolean {
  const stdout = process.stdout;
  const writer = new DirectWriter(stdout, stdout.fd);
  const resume = () => tapEnd.resume();
  stdout.on("error", resume);
  tapEnd.once("end", () => {
    copy.end("agent");
    tapEnd.destroy();
    done();
  });
  tapEnd.on("error", () => {});
  return (chunk) => {
    const more = writer.write(chunk);
    copy.bytes("agent", chunk);
    if (!more) stdout.once("drain", resume);
    return more;
  };
}

/** Starts the analyzer at the lowest priority (./analyzer-launch.ts) and sends it its options. */
function startAnalyzer(options: TapOptions): ChildProcess {
  const analyzer = spawnAnalyzer(ANALYZER);
  const settings: AnalyzerOptions = {
    tool: options.tool,
    argv: options.argv,
    ...(options.tracePath !== undefined ? { tracePath: options.tracePath } : {}),
    ...(options.reportPath !== undefined ? { reportPath: options.reportPath } : {}),
    ...(options.quiet ? { quiet: true } : {}),
  };
  analyzer.stdin!.write(`${JSON.stringify(settings)}\n`);
  return analyzer;
}

/** Ends the analyzer's input and waits for it to report the end of the conversation and close its files. */
async function finishAnalyzer(analyzer: ChildProcess): Promise<void> {
  analyzerAtFullSpeed(analyzer);
  analyzer.stdin!.end();
  await waitUntil(() => analyzer.exitCode !== null || analyzer.signalCode !== null, ANALYZER_FINISH_MS, 20);
}
