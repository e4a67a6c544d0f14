/**
 * `acp tap`: a transparent stdio proxy in front of an agent. The editor starts `acp tap -- <agent command>` instead
 * of the agent; the tap launches the agent (own process group), forwards bytes both ways unchanged and unbuffered
 * (the agent's stderr too), and watches a copy: every frame is checked against the schema and the protocol's rules
 * from both sides' point of view, violations are reported live (stderr, or a report file), and the conversation can
 * be written as a cassette. The agent's exit code is the tap's; signals the tap gets are passed to the agent.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { launchAgent, signalGroup, type LaunchedAgent } from "../../node/index.js";
import { openCassetteFile, type CassetteFile } from "../../node/cassette-file.js";
import { CassetteRecorder, WireChecker, WireObserver, type Finding, type Side } from "../../wire/index.js";
import { findingLines, findingRecord } from "./finding-text.js";

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
}

/** How the agent ended. */
export interface TapExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  findings: Finding[];
}

/** Thrown when a file the options name cannot be written, or the agent cannot be started. */
export class TapSetupError extends Error {
  override readonly name = "TapSetupError";
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

export async function runTap(options: TapOptions): Promise<TapExit> {
  const io = options.io ?? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  let trace: CassetteFile | undefined;
  let reportFd: number | undefined;
  try {
    if (options.tracePath !== undefined) trace = openCassetteFile(options.tracePath, { batch: true });
    if (options.reportPath !== undefined) reportFd = openSync(options.reportPath, "w");
  } catch (error) {
    trace?.close();
    throw new TapSetupError(`cannot write ${(error as NodeJS.ErrnoException).path ?? "the file"}: ${(error as Error).message}`, { cause: error });
  }
  let launched: LaunchedAgent;
  try {
    launched = await launchAgent({ argv: options.argv, cwd: process.cwd() });
  } catch (error) {
    trace?.close();
    if (reportFd !== undefined) closeSync(reportFd);
    throw new TapSetupError((error as Error).message, { cause: error });
  }
  const child = launched.child;
  let stderrAtLineStart = true;
  const report = (finding: Finding) => {
    if (reportFd !== undefined) writeSync(reportFd, `${findingRecord(finding)}\n`);
    else if (!options.quiet) io.stderr.write(`${stderrAtLineStart ? "" : "\n"}${findingLines(finding, options.tool.name)}`);
  };
  const recorder = trace ? new CassetteRecorder(trace.sink, { tool: options.tool, agent: options.argv }) : undefined;
  const checker = new WireChecker({ onFinding: report });
  const observer = new WireObserver({ checker, ...(recorder ? { recorder } : {}) });

  const pipe = (from: Side, input: Readable, output: Writable, end: () => void) => {
    input.on("data", (chunk: Buffer) => {
      if (!output.write(chunk)) {
        input.pause();
        output.once("drain", () => input.resume());
      }
      observer.bytes(from, chunk);
      trace?.flush();
    });
    input.once("end", () => {
      observer.end(from);
      end();
    });
    input.on("error", () => {});
    output.on("error", () => input.resume());
  };
  const agentOutputDone = new Promise<void>((resolve) => {
    pipe("agent", child.stdout!, io.stdout, resolve);
    child.stdout!.once("close", () => resolve());
  });
  pipe("client", io.stdin, child.stdin!, () => child.stdin!.end());
  child.stderr!.on("data", (chunk: Buffer) => {
    io.stderr.write(chunk);
    stderrAtLineStart = chunk[chunk.length - 1] === 0x0a;
  });

  const forward = (signal: NodeJS.Signals) => () => void signalGroup(launched.pid, signal);
  const handlers = FORWARDED_SIGNALS.map((signal) => [signal, forward(signal)] as const);
  if (!options.io) for (const [signal, handler] of handlers) process.on(signal, handler);
  try {
    const status = await launched.exited;
    await Promise.race([agentOutputDone, new Promise((resolve) => setTimeout(resolve, 1000))]);
    await launched.stop();
    const findings = checker.end();
    recorder?.close();
    return { ...status, findings };
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    io.stdin.pause();
    trace?.close();
    if (reportFd !== undefined) closeSync(reportFd);
  }
}
