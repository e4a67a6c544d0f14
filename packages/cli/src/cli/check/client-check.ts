/** `acp check client`: runs the client checker and maps its report to an exit code. */
import { basename } from "node:path";
import { runClientCheck } from "../../apps/check/client/run-client-check.js";
import { CLIENT_SCENARIOS } from "../../apps/check/client/scenarios/index.js";
import { failures, type CheckReport, type ScenarioResult } from "../../apps/check/results.js";
import type { CheckArgs } from "./args.js";

export const CLIENT_SCENARIO_LIST = CLIENT_SCENARIOS.map((s) => ({ id: s.id, title: s.title, spec: s.spec }));

const warn = (text: string) => void process.stderr.write(text);

export async function runClientCheckCommand(
  args: CheckArgs,
  version: string,
  expected: Map<string, string> | undefined,
  progress: ((r: ScenarioResult) => void) | undefined,
  print: (report: CheckReport) => void,
): Promise<number> {
  const report = await runClientCheck({
    target: {
      command: args.command,
      ...(args.stdin !== undefined ? { stdin: args.stdin } : {}),
      cancelSignal: args.cancelSignal,
      startupTimeoutMs: args.startupTimeoutMs,
      turnTimeoutMs: args.turnTimeoutMs,
      version,
    },
    only: args.only,
    skip: args.skip,
    ...(expected ? { expected } : {}),
    ...(progress ? { onResult: progress } : {}),
  });
  print(report);
  const why = neverStartedAgent(report, args.command);
  if (why !== undefined) {
    warn(why);
    return 3;
  }
  return failures(report.summary) > 0 ? 1 : 0;
}

/**
 * When the client failed before starting its agent in every scenario, nothing was checked: the command itself does
 * not work where the checker runs it. Returns what to tell the user (why, and what to do), else undefined.
 */
export function neverStartedAgent(report: CheckReport, command: readonly string[]): string | undefined {
  const ran = report.results.filter((r) => r.status !== "skipped");
  if (ran.length === 0) return undefined;
  const beforeAgent = /did not start its agent|exited .* without starting its agent/;
  if (!ran.every((r) => r.status === "failed" && beforeAgent.test(r.message ?? ""))) return undefined;
  const program = command[0] ?? "";
  const runner = /^(npx|npm|pnpm|yarn|bunx)$/.test(basename(program));
  return (
    `acp check client: the client failed before starting its agent in every scenario (${ran.length}), ` +
    "so nothing was checked. " +
    "Each scenario runs the client in a fresh temporary directory, and the command does not work there" +
    (runner
      ? `: ${program} looks for the program in that directory's node_modules, which is empty, ` +
        "then asks the registry. " +
        "Give the installed program's path instead (e.g. node_modules/.bin/acp, or a global install)."
      : ". Give programs and files by absolute path (or relative to here: words naming an existing file are made " +
        "absolute), and make sure the client starts the {agent} command it is given.") +
    " The client's own words are in each scenario's message above.\n"
  );
}
