/**
 * The fronts of `acp replay`: `--as agent` plays a cassette's agent side on this process's stdio (a client starts
 * `acp replay FILE --as agent` as its agent), `--as client` launches an agent and plays the client's side to it,
 * then says where the agent's frames differed from the recording.
 */
import { readFileSync } from "node:fs";
import { sanitizeTerminalText, terminalSafeJson } from "@acpkit/sdk/client-toolkit";
import { resolve } from "node:path";
import { launchAgent } from "@acpkit/sdk/node";
import { scriptPeerOver } from "@acpkit/sdk/node";
import {
  firstCwd,
  readCassette,
  replayAgent,
  replayClient,
  WireChecker,
  type Cassette,
  type Divergence,
  type ReplayResult,
} from "@acpkit/sdk/wire";

/** Reads a cassette file; the error names the file and the line. */
export function loadCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return readCassette(text);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** One divergence, for people: what the agent sent is shown without terminal control sequences. */
export function divergenceText(d: Divergence): string {
  const where = d.entry >= 0 ? `#${d.entry + 1} ` : "";
  const lines = [`  ${d.kind.padEnd(10)} ${where}${sanitizeTerminalText(d.frame)}: ${sanitizeTerminalText(d.message)}`];
  for (const difference of d.differences ?? [])
    lines.push(
      `             ${sanitizeTerminalText(difference.path)}: expected ${show(difference.expected)}, got ` +
        `${show(difference.actual)}`,
    );
  return `${lines.join("\n")}\n`;
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = terminalSafeJson(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

export interface ReplayAgentOptions {
  cassette: Cassette;
  timing: boolean;
  timeoutMs: number;
  /** Where divergences go (stderr). */
  report: (text: string) => void;
}

/** Plays the agent's side on stdio until the client closes stdin. Resolves with the result. */
export async function replayAsAgent(options: ReplayAgentOptions): Promise<ReplayResult> {
  const peer = scriptPeerOver(process.stdin, process.stdout, {
    side: "agent",
    checker: new WireChecker({ judge: [] }),
  });
  const result = await replayAgent(options.cassette, peer, {
    timing: options.timing,
    timeoutMs: options.timeoutMs,
    onDivergence: (d) => options.report(`acp replay: ${divergenceText(d).trimStart()}`),
  });
  await peer.whenClosed();
  return result;
}

export interface ReplayClientFrontOptions {
  cassette: Cassette;
  argv: readonly string[];
  timing: boolean;
  timeoutMs: number;
  cwd?: string;
  ignore: readonly string[];
}

/** Launches the agent, plays the client's side to it, stops it. Throws when the agent cannot be started. */
export async function replayAsClient(options: ReplayClientFrontOptions): Promise<ReplayResult> {
  const recorded = firstCwd(options.cassette);
  const cwd = options.cwd !== undefined ? resolve(options.cwd) : recorded;
  const launched = await launchAgent({ argv: options.argv, cwd: process.cwd() });
  const peer = scriptPeerOver(launched.child.stdout!, launched.child.stdin!, {
    side: "client",
    checker: new WireChecker({ judge: [] }),
  });
  try {
    return await replayClient(options.cassette, peer, {
      timing: options.timing,
      timeoutMs: options.timeoutMs,
      ignore: options.ignore,
      ...(cwd !== undefined ? { cwd } : {}),
    });
  } finally {
    await launched.stop();
  }
}
