/**
 * Runs `acp check agent`: the `initialize` scenario first (it tells what the agent advertises, and whether it
 * starts at all), then every selected scenario in a fresh directory with fresh agent processes, which get their own
 * temporary HOME and data directories (removed when the scenario ends). Each result gets
 * the rule findings of its conversations: an error finding fails the scenario, a warning is listed.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { frameText, type Finding } from "@acpkit/sdk/wire";
import {
  applyExpected,
  CheckFailed,
  NotExercised,
  reportFinding,
  Skipped,
  summarize,
  type CheckReport,
  type ScenarioResult,
  type Status,
} from "../results.js";
import { matchesAny } from "../selection.js";
import { AgentDidNotStart, type AgentTarget } from "./agent-process.js";
import { isolatedHome } from "./isolation.js";
import type { PromptBook } from "./prompts.js";
import { AgentScenarioContext, type AgentScenario } from "./scenario.js";
import { AGENT_SCENARIOS } from "./scenarios/index.js";
import { authMethodIds } from "./scenarios/initialize.js";

export interface AgentCheckOptions {
  target: AgentTarget;
  prompts: PromptBook;
  only?: readonly string[];
  skip?: readonly string[];
  /** Scenario id -> reason, from --expected-failures. */
  expected?: ReadonlyMap<string, string>;
  /** Called with each result as it is known (for live progress). */
  onResult?: (result: ScenarioResult) => void;
  scenarios?: readonly AgentScenario[];
}

export interface AgentCheckOutcome {
  report: CheckReport;
  /** Set when the agent did not start: why (exit code 3). */
  didNotStart?: string;
  /** Set when `--auth` names a method the agent does not offer: nothing ran after initialize (a usage error). */
  badAuth?: string;
}

export async function runAgentCheck(options: AgentCheckOptions): Promise<AgentCheckOutcome> {
  const scenarios = options.scenarios ?? AGENT_SCENARIOS;
  const started = new Date();
  const t0 = performance.now();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "acp-check-agent-")));
  const results: ScenarioResult[] = [];
  let init: Record<string, unknown> | undefined;
  let didNotStart: string | undefined;
  let badAuth: string | undefined;
  const selected = (id: string) =>
    (options.only === undefined || options.only.length === 0 || matchesAny(id, options.only)) &&
    !matchesAny(id, options.skip ?? []);
  try {
    for (const scenario of scenarios) {
      const first = scenario === scenarios[0];
      if (!first && !selected(scenario.id)) continue;
      let result: ScenarioResult;
      if (!first && init === undefined) break;
      const skip = first ? undefined : scenario.skip?.(init!);
      if (skip !== undefined) {
        result = {
          id: scenario.id,
          title: scenario.title,
          spec: scenario.spec,
          status: "skipped",
          message: skip,
          warnings: [],
          findings: [],
          measurements: {},
          durationMs: 0,
        };
      } else {
        const workdir = join(root, scenario.id);
        mkdirSync(workdir);
        const home = join(root, `${scenario.id}.home`);
        const outcome = await runOne(
          scenario,
          new AgentScenarioContext(scenario.id, options.target, options.prompts, workdir, isolatedHome(home)),
        );
        rmSync(home, { recursive: true, force: true });
        result = outcome.result;
        if (first) {
          init = outcome.init;
          if (outcome.didNotStart !== undefined) didNotStart = outcome.didNotStart;
        }
      }
      const auth = options.target.auth;
      if (first && init !== undefined && auth !== undefined && !authMethodIds(init).includes(auth)) {
        const offered = authMethodIds(init);
        badAuth =
          `the agent does not offer the auth method "${auth}" given with --auth; it offers ` +
          `${offered.length === 0 ? "none" : offered.map((id) => JSON.stringify(id)).join(", ")}`;
        break;
      }
      result = applyExpected(result, options.expected);
      if (first && !selected(scenario.id) && didNotStart === undefined) continue;
      results.push(result);
      options.onResult?.(result);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const report: CheckReport = {
    kind: "agent",
    command: options.target.argv,
    tool: { name: "acp check agent", version: options.target.version },
    started: started.toISOString(),
    durationMs: performance.now() - t0,
    ...(init?.agentInfo !== undefined ? { peerInfo: init.agentInfo } : {}),
    results,
    summary: summarize(results),
  };
  return {
    report,
    ...(didNotStart !== undefined ? { didNotStart } : {}),
    ...(badAuth !== undefined ? { badAuth } : {}),
  };
}

async function runOne(
  scenario: AgentScenario,
  ctx: AgentScenarioContext,
): Promise<{ result: ScenarioResult; init?: Record<string, unknown>; didNotStart?: string }> {
  const t0 = performance.now();
  let status: Status = "passed";
  let message: string | undefined;
  let didNotStart: string | undefined;
  const deadlineMs = 3 * ctx.target.turnTimeoutMs + 2 * ctx.target.startupTimeoutMs + 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const deadline = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new CheckFailed(`the scenario did not finish within ${Math.round(deadlineMs / 1000)} s`)),
          deadlineMs,
        )),
    );
    message = (await Promise.race([scenario.run(ctx), deadline])) ?? undefined;
  } catch (error) {
    if (error instanceof NotExercised) [status, message] = ["not-exercised", error.message];
    else if (error instanceof Skipped) [status, message] = ["skipped", error.message];
    else if (error instanceof CheckFailed) [status, message] = ["failed", error.message];
    else if (error instanceof AgentDidNotStart) {
      [status, message] = ["failed", `the agent did not start: ${error.message}`];
      didNotStart = error.message;
    } else [status, message] = ["failed", `the check itself failed: ${(error as Error).stack ?? String(error)}`];
  } finally {
    clearTimeout(timer);
  }
  await Promise.all(ctx.processes.map((p) => p.stop()));
  const findings: Finding[] = ctx.processes.flatMap((p) => p.findings());
  const errors = findings.filter((f) => f.severity === "error");
  if (errors.length > 0 && status !== "failed" && status !== "skipped") {
    status = "failed";
    message =
      `the agent broke ${errors.length === 1 ? "a protocol rule" : `${errors.length} protocol rules`}: ` +
      `${errors[0]!.message}`;
  }
  for (const warning of findings.filter((f) => f.severity === "warning"))
    ctx.warn(`[${warning.rule}] ${warning.message}`);
  const init = ctx.processes[0]?.init;
  return {
    result: {
      id: scenario.id,
      title: scenario.title,
      spec: scenario.spec,
      status,
      ...(message !== undefined ? { message } : {}),
      warnings: ctx.warnings,
      findings: findings.map((f) => reportFinding(f, f.event ? frameText(f.event) : undefined)),
      measurements: ctx.measurements,
      durationMs: performance.now() - t0,
    },
    ...(init ? { init } : {}),
    ...(didNotStart !== undefined ? { didNotStart } : {}),
  };
}
