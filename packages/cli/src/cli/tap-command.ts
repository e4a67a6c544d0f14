/**
 * `acp tap [--trace FILE] [--report FILE] [--quiet] -- <agent command>` and `acp record FILE -- <agent command>`:
 * thin fronts of the tap proxy (src/apps/tap). The tap's exit code is the agent's; an agent killed by a signal kills
 * the tap with the same signal.
 */
import { runTap, TapSetupError, type TapOptions } from "../apps/tap/tap-proxy.js";
import { splitCommandLine } from "@acpkit/sdk/node";

export const TAP_USAGE = `Usage: acp tap [--trace FILE] [--report FILE] [--quiet] -- <agent command>

A transparent stdio proxy for any ACP agent: put it in front of the agent's command in your editor's settings.
Bytes pass through unchanged in both directions; every frame is checked against the ACP schema and the protocol's
rules, from both sides' point of view, and violations are reported live on stderr with the frame and the JSON path.

Options:
  --trace FILE    write the whole conversation to FILE as a cassette (acp replay plays it back)
  --report FILE   write violations to FILE (one JSON object a line) instead of stderr
  --quiet         no violations on stderr
  -h, --help      this help

The tap exits with the agent's exit code; SIGINT, SIGTERM and SIGHUP are passed on to the agent.
`;

export const RECORD_USAGE = `Usage: acp record FILE [--report FILE] -- <agent command>

Records a conversation with an agent as a cassette: acp tap --trace FILE --quiet. Use it as the agent command of
any client (acp exec --agent "acp record session.cassette -- my-agent"), then play it back with acp replay.
`;

interface Parsed {
  help: boolean;
  trace?: string;
  report?: string;
  quiet: boolean;
  argv: string[];
}

function parse(argv: readonly string[], record: boolean): Parsed {
  const parsed: Parsed = { help: false, quiet: record, argv: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      parsed.argv = argv.slice(i + 1);
      break;
    }
    if (arg === "-h" || arg === "--help") parsed.help = true;
    else if (arg === "--quiet" && !record) parsed.quiet = true;
    else if ((arg === "--trace" && !record) || arg === "--report") {
      const value = argv[++i];
      if (value === undefined || value === "") throw new Error(`${arg} needs a file name`);
      if (arg === "--trace") parsed.trace = value;
      else parsed.report = value;
    } else if (record && !arg.startsWith("-") && parsed.trace === undefined) parsed.trace = arg;
    else throw new Error(`unknown argument "${arg}"; put the agent's command after --`);
  }
  if (parsed.argv.length === 1 && /\s/.test(parsed.argv[0]!)) parsed.argv = splitCommandLine(parsed.argv[0]!);
  if (!parsed.help && parsed.argv.length === 0)
    throw new Error("no agent command: put it after --, e.g. -- npx my-agent --acp");
  if (!parsed.help && record && parsed.trace === undefined)
    throw new Error("no cassette file: acp record FILE -- <agent command>");
  return parsed;
}

/** `acp tap ...` or `acp record ...`; resolves with the exit code (after re-raising a fatal signal). */
export async function tapCommand(argv: readonly string[], version: string, record = false): Promise<number> {
  const name = record ? "acp record" : "acp tap";
  let parsed: Parsed;
  try {
    parsed = parse(argv, record);
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(record ? RECORD_USAGE : TAP_USAGE);
    return 0;
  }
  const options: TapOptions = {
    argv: parsed.argv,
    tool: { name, version },
    quiet: parsed.quiet,
    ...(parsed.trace ? { tracePath: parsed.trace } : {}),
    ...(parsed.report ? { reportPath: parsed.report } : {}),
  };
  try {
    const exit = await runTap(options);
    process.stdin.destroy();
    if (exit.signal !== null) {
      process.kill(process.pid, exit.signal);
      return 128;
    }
    return exit.code ?? 1;
  } catch (error) {
    if (error instanceof TapSetupError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      // A file that cannot be written is a usage error; an agent that cannot be started, "command not found".
      return error.file !== undefined ? 2 : 127;
    }
    throw error;
  }
}
