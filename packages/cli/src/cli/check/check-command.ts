/**
 * `acp check agent|client`: parses the flags, runs the checker from src/apps/check, prints the report in the
 * format asked for, and exits 0 (every exercised check passed), 1 (a check failed), 2 (usage) or 3 (the agent did
 * not start).
 */
import { writeSync } from "node:fs";
import { readPromptBook, PromptBook } from "../../apps/check/agent/prompts.js";
import { runAgentCheck } from "../../apps/check/agent/run-agent-check.js";
import { AGENT_SCENARIOS } from "../../apps/check/agent/scenarios/index.js";
import { formatJunit } from "../../apps/check/format/junit.js";
import { sanitizeTerminalText, terminalSafeJson } from "@acpkit/sdk/client-toolkit";
import { formatTable, plainPaint, type TablePaint } from "../../apps/check/format/table.js";
import { failures, type CheckReport, type ScenarioResult } from "../../apps/check/results.js";
import { readExpectedFailures, unknownPatterns } from "../../apps/check/selection.js";
import { UsageError } from "../shared/usage-error.js";
import { parseCheckArgs, type CheckArgs } from "./args.js";
import { CHECK_AGENT_USAGE, CHECK_CLIENT_USAGE, CHECK_USAGE } from "./usage.js";
import { runClientCheckCommand, CLIENT_SCENARIO_LIST } from "./client-check.js";

const out = (text: string) => void writeSync(1, text);
const err = (text: string) => void process.stderr.write(text);

/** `acp check ...` (the arguments after `check`); resolves with the exit code. */
export async function checkCommand(argv: readonly string[], version: string): Promise<number> {
  const kind = argv[0];
  if (kind === undefined || kind === "--help" || kind === "-h" || kind === "help") {
    out(CHECK_USAGE);
    return kind === undefined ? 2 : 0;
  }
  if (kind !== "agent" && kind !== "client") {
    err(`acp check: unknown target "${kind}": use acp check agent or acp check client\n`);
    return 2;
  }
  let args: CheckArgs;
  try {
    args = parseCheckArgs(kind, argv.slice(1));
  } catch (error) {
    if (error instanceof UsageError) {
      err(`acp check ${kind}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (args.help) {
    out(kind === "agent" ? CHECK_AGENT_USAGE : CHECK_CLIENT_USAGE);
    return 0;
  }
  const catalogue =
    kind === "agent" ? AGENT_SCENARIOS.map((s) => ({ id: s.id, title: s.title, spec: s.spec })) : CLIENT_SCENARIO_LIST;
  if (args.list) {
    const width = Math.max(...catalogue.map((s) => s.id.length));
    out(catalogue.map((s) => `${s.id.padEnd(width)}  ${s.title}\n${" ".repeat(width)}  ${s.spec}\n`).join(""));
    return 0;
  }
  const ids = catalogue.map((s) => s.id);
  let expected: Map<string, string> | undefined;
  try {
    const typos = unknownPatterns([...args.only, ...args.skip], ids);
    if (typos.length > 0)
      throw new UsageError(
        `no scenario matches ${typos.map((t) => JSON.stringify(t)).join(", ")} (acp check ${kind} --list shows them)`,
      );
    if (args.expectedFailures !== undefined) expected = readExpectedFailures(args.expectedFailures, ids);
  } catch (error) {
    err(`acp check ${kind}: ${(error as Error).message}\n`);
    return 2;
  }
  const progress =
    args.verbose || process.stderr.isTTY
      ? (result: ScenarioResult) =>
          err(
            `acp check ${kind}: ${result.id}: ` +
              `${result.status}${result.status === "passed" ? "" : ` (${sanitizeTerminalText(firstLine(result.message))})`}\n`,
          )
      : undefined;
  if (kind === "client")
    return runClientCheckCommand(args, version, expected, progress, (report) => print(args, report));

  let prompts = new PromptBook();
  try {
    if (args.prompts !== undefined) prompts = readPromptBook(args.prompts, ids);
  } catch (error) {
    err(`acp check agent: ${(error as Error).message}\n`);
    return 2;
  }
  const outcome = await runAgentCheck({
    target: {
      argv: args.command,
      startupTimeoutMs: args.startupTimeoutMs,
      turnTimeoutMs: args.turnTimeoutMs,
      version,
      ...(args.auth !== undefined ? { auth: args.auth } : {}),
      extraEnv: args.env,
    },
    prompts,
    only: args.only,
    skip: args.skip,
    ...(expected ? { expected } : {}),
    ...(progress ? { onResult: progress } : {}),
  });
  if (outcome.badAuth !== undefined) {
    err(`acp check agent: ${outcome.badAuth}\n`);
    return 2;
  }
  print(args, outcome.report);
  if (outcome.didNotStart !== undefined) {
    err(`acp check agent: the agent did not start: ${sanitizeTerminalText(outcome.didNotStart)}\n`);
    return 3;
  }
  return failures(outcome.report.summary) > 0 ? 1 : 0;
}

function firstLine(text: string | undefined): string {
  const line = (text ?? "").split("\n")[0]!;
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

function print(args: CheckArgs, report: CheckReport): void {
  if (args.format === "json") out(`${terminalSafeJson(report, 2)}\n`);
  else if (args.format === "junit") out(formatJunit(report));
  else out(formatTable(report, process.stdout.isTTY && !process.env.NO_COLOR ? ttyPaint : plainPaint));
}

const ttyPaint: TablePaint = {
  green: (t) => `\u001b[32m${t}\u001b[39m`,
  red: (t) => `\u001b[31m${t}\u001b[39m`,
  yellow: (t) => `\u001b[33m${t}\u001b[39m`,
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
};
