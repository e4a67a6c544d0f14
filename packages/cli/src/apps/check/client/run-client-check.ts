/**
 * Runs `acp check client`: each selected scenario starts the client afresh in its own directory, with its own
 * scripted agent. After the script, the runner answers a turn left open, ends the client's stdin, waits for the
 * client to exit (then stops it), checks that no agent process outlived it, and adds the rule findings about the
 * client: an error finding fails the scenario, a warning is listed.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { frameText } from "@acpkit/sdk/wire";
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
import { ClientRun, type ClientTarget } from "./client-run.js";
import { ClientScenarioContext, type ClientScenario } from "./scenario.js";
import { CLIENT_SCENARIOS } from "./scenarios/index.js";

export interface ClientCheckOptions {
  target: ClientTarget;
  only?: readonly string[];
  skip?: readonly string[];
  expected?: ReadonlyMap<string, string>;
  onResult?: (result: ScenarioResult) => void;
  scenarios?: readonly ClientScenario[];
}

/** How long a client has to exit by itself once its turn is over and its stdin ended. */
const EXIT_GRACE_MS = 10_000;

export async function runClientCheck(options: ClientCheckOptions): Promise<CheckReport> {
  const scenarios = options.scenarios ?? CLIENT_SCENARIOS;
  const started = new Date();
  const t0 = performance.now();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "acp-check-client-")));
  const results: ScenarioResult[] = [];
  let peerInfo: unknown;
  try {
    for (const scenario of scenarios) {
      if (options.only && options.only.length > 0 && !matchesAny(scenario.id, options.only)) continue;
      if (matchesAny(scenario.id, options.skip ?? [])) continue;
      const { result, clientInfo } = await runOne(scenario, options.target, root);
      peerInfo ??= clientInfo;
      const final = applyExpected(result, options.expected);
      results.push(final);
      options.onResult?.(final);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return {
    kind: "client",
    command: options.target.command,
    tool: { name: "acp check client", version: options.target.version },
    started: started.toISOString(),
    durationMs: performance.now() - t0,
    ...(peerInfo !== undefined ? { peerInfo } : {}),
    results,
    summary: summarize(results),
  };
}

async function runOne(
  scenario: ClientScenario,
  target: ClientTarget,
  root: string,
): Promise<{ result: ScenarioResult; clientInfo?: unknown }> {
  const t0 = performance.now();
  const workdir = join(root, scenario.id);
  const outside = join(root, `${scenario.id}-outside`);
  mkdirSync(workdir);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "acp check: a file outside the session's roots\n");
  const ctx = new ClientScenarioContext(scenario.id, target, undefined, outside);
  const agentOptions = typeof scenario.agent === "function" ? scenario.agent(ctx) : (scenario.agent ?? {});
  let status: Status = "passed";
  let message: string | undefined;
  const run = await ClientRun.start(target, workdir, scenario.relay ?? {}, agentOptions);
  ctx.run = run;
  const deadlineMs = 2 * target.turnTimeoutMs + target.startupTimeoutMs + 30_000;
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
    else [status, message] = ["failed", `the check itself failed: ${(error as Error).stack ?? String(error)}`];
  } finally {
    clearTimeout(timer);
  }
  await wrapUp(ctx, run);
  await run.dispose();
  const findings = run.agent ? run.agent.peer.checker.end() : [];
  const errors = findings.filter((f) => f.severity === "error");
  if (errors.length > 0 && status !== "failed" && status !== "skipped") {
    status = "failed";
    message =
      `the client broke ${errors.length === 1 ? "a protocol rule" : `${errors.length} protocol rules`}: ` +
      `${errors[0]!.message}`;
  }
  for (const warning of findings.filter((f) => f.severity === "warning"))
    ctx.warn(`[${warning.rule}] ${warning.message}`);
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
    ...(run.agent?.initialize?.clientInfo !== undefined ? { clientInfo: run.agent.initialize.clientInfo } : {}),
  };
}

/** Lets the client finish: answers open turns, ends its stdin, waits for its exit, checks for a leftover agent. */
async function wrapUp(ctx: ClientScenarioContext, run: ClientRun): Promise<void> {
  for (const turn of run.agent?.pending() ?? []) run.agent!.end(turn);
  run.closeStdin();
  if (run.exit === undefined) {
    const exit = await run.exitWithin(EXIT_GRACE_MS);
    if (!exit)
      ctx.warn(
        `the client was still running ${EXIT_GRACE_MS / 1000} s after its turn was over and its stdin ended; ` +
          `it was stopped`,
      );
  }
  if (run.exit !== undefined && (await run.relayOutlives(1000)))
    ctx.warn(`the client exited and left its agent process (pid ${run.relayPid}) running`);
}
