/** `acp check client`: to come. */
import type { CheckReport, ScenarioResult } from "../../apps/check/results.js";
import type { CheckArgs } from "./args.js";

export const CLIENT_SCENARIO_LIST: Array<{ id: string; title: string; spec: string }> = [];

export async function runClientCheckCommand(_args: CheckArgs, _version: string, _expected: Map<string, string> | undefined, _progress: ((r: ScenarioResult) => void) | undefined, _print: (report: CheckReport) => void): Promise<number> {
  process.stderr.write("acp check client: not built yet\n");
  return 2;
}
