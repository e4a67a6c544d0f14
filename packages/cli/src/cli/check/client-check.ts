/** `acp check client`: runs the client checker and maps its report to an exit code. */
import { runClientCheck } from "../../apps/check/client/run-client-check.js";
import { CLIENT_SCENARIOS } from "../../apps/check/client/scenarios/index.js";
import { failures, type CheckReport, type ScenarioResult } from "../../apps/check/results.js";
import type { CheckArgs } from "./args.js";

export const CLIENT_SCENARIO_LIST = CLIENT_SCENARIOS.map((s) => ({ id: s.id, title: s.title, spec: s.spec }));

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
  const started =
    report.results.some((r) => r.id === "initialize" && r.status !== "failed") ||
    report.results.some((r) => r.status === "passed");
  if (
    !started &&
    report.results.every(
      (r) =>
        r.status === "failed" && /did not start its agent|exited .* without starting its agent/.test(r.message ?? ""),
    )
  )
    return 3;
  return failures(report.summary) > 0 ? 1 : 0;
}
