/**
 * `acp replay FILE --as agent|client [options] [-- <agent command>]`: plays one side of a cassette (see
 * src/apps/replay). Exit codes: 0 the replay matched the recording, 1 it diverged, 2 usage, 3 the agent did not start.
 */
import { terminalSafeJson } from "@acpkit/sdk/client-toolkit";
import { divergenceText, loadCassette, replayAsAgent, replayAsClient } from "../apps/replay/replay-front.js";
import { splitCommandLine } from "@acpkit/sdk/node";
import type { Cassette, ReplayResult } from "@acpkit/sdk/wire";

export const REPLAY_USAGE = `Usage: acp replay FILE --as agent [--timing] [--timeout S]
       acp replay FILE --as client [--timing] [--timeout S] [--cwd DIR] [--ignore KEYS] [--format text|json] -- <agent command>

Plays one side of a cassette (written by acp tap --trace, acp record or --trace).

  --as agent     be the recorded agent on stdio: give "acp replay FILE --as agent" to a client as its agent command.
                 Each recorded agent frame is sent once the client's frames recorded before it have arrived;
                 answers carry the client's own request ids; paths under the recorded cwd move to the client's.
  --as client    start the agent and play the recorded client to it; report where the agent's frames differ from
                 the recording (ids, session ids, tool call ids and times are volatile and ignored)
  --timing       keep the recorded gaps between frames (default: as fast as the other side allows)
  --timeout S    how long to wait for each expected frame (default 30)
  --cwd DIR      --as client: the directory that stands for the recorded session cwd (default: the recorded one)
  --ignore KEYS  --as client: more keys or JSON paths to leave out of the comparison, comma-separated
  --format F     --as client: text (default) or json

Exit codes: 0 the replay matched the recording, 1 it diverged, 2 usage error, 3 the agent did not start.
`;

interface ReplayArgs {
  file?: string;
  as?: "agent" | "client";
  timing: boolean;
  timeoutMs: number;
  cwd?: string;
  ignore: string[];
  format: "text" | "json";
  argv: string[];
  help: boolean;
}

function parse(argv: readonly string[]): ReplayArgs {
  const args: ReplayArgs = { timing: false, timeoutMs: 30_000, ignore: [], format: "text", argv: [], help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined || next === "") throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--") {
      args.argv = argv.slice(i + 1);
      break;
    }
    if (arg === "-h" || arg === "--help") args.help = true;
    else if (arg === "--timing") args.timing = true;
    else if (arg === "--as") {
      const side = value();
      if (side !== "agent" && side !== "client") throw new Error(`--as takes agent or client, got "${side}"`);
      args.as = side;
    } else if (arg === "--timeout") {
      const s = Number(value());
      if (!Number.isFinite(s) || s <= 0) throw new Error("--timeout takes a positive number of seconds");
      args.timeoutMs = Math.round(s * 1000);
    } else if (arg === "--cwd") args.cwd = value();
    else if (arg === "--ignore") args.ignore.push(...value().split(",").filter(Boolean));
    else if (arg === "--format") {
      const format = value();
      if (format !== "text" && format !== "json") throw new Error(`--format takes text or json, got "${format}"`);
      args.format = format;
    } else if (!arg.startsWith("-") && args.file === undefined) args.file = arg;
    else throw new Error(`unknown argument "${arg}"`);
  }
  if (args.help) return args;
  if (args.file === undefined) throw new Error("no cassette: acp replay FILE --as agent|client");
  if (args.as === undefined)
    throw new Error("say which side to play: --as agent (to a client) or --as client (to an agent)");
  if (args.argv.length === 1 && /\s/.test(args.argv[0]!)) args.argv = splitCommandLine(args.argv[0]!);
  if (args.as === "client" && args.argv.length === 0) throw new Error("--as client needs the agent's command after --");
  if (args.as === "agent" && args.argv.length > 0)
    throw new Error("--as agent plays the agent itself: no command after --");
  return args;
}

const err = (text: string) => void process.stderr.write(text);

export async function replayCommand(argv: readonly string[]): Promise<number> {
  let args: ReplayArgs;
  let cassette: Cassette;
  try {
    args = parse(argv);
    if (args.help) {
      process.stdout.write(REPLAY_USAGE);
      return 0;
    }
    cassette = loadCassette(args.file!);
  } catch (error) {
    err(`acp replay: ${(error as Error).message}\n`);
    return 2;
  }
  if (args.as === "agent") {
    const result = await replayAsAgent({ cassette, timing: args.timing, timeoutMs: args.timeoutMs, report: err });
    process.stdin.destroy();
    return result.divergences.some((d) => d.kind !== "differs") ? 1 : 0;
  }
  let result: ReplayResult;
  try {
    result = await replayAsClient({
      cassette,
      argv: args.argv,
      timing: args.timing,
      timeoutMs: args.timeoutMs,
      ignore: args.ignore,
      ...(args.cwd !== undefined ? { cwd: args.cwd } : {}),
    });
  } catch (error) {
    err(`acp replay: ${(error as Error).message}\n`);
    return 3;
  }
  if (args.format === "json") process.stdout.write(`${terminalSafeJson(result, 2)}\n`);
  else {
    const n = result.divergences.length;
    process.stdout.write(
      `acp replay --as client: ${result.compared} agent frame${result.compared === 1 ? "" : "s"} compared, ` +
        `${n === 0 ? "no differences" : `${n} difference${n === 1 ? "" : "s"}`}${
          result.completed ? "" : " (the replay stopped " + "early)"
        }\n`,
    );
    for (const d of result.divergences) process.stdout.write(divergenceText(d));
  }
  return result.divergences.length > 0 ? 1 : 0;
}
