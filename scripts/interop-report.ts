/**
 * The interop report: how each pinned real ACP agent from npm behaves, offline, checked by acpkit's tools.
 *
 *   npm run interop-report                 # installs the pinned agents into .real-agents/ (npm registry), then checks
 *   npm run interop-report -- gemini       # only some agents (the report then has only those)
 *
 * For each agent: `acp check agent` (every scenario; prompt turns get a short deadline, since offline a real agent
 * cannot reach its model), then one turn driven with `acp exec`, interrupted after a deadline like a user pressing
 * Ctrl-C. Writes docs/interop-report.md: a dated table (start time, checks passed / failed / skipped / not exercised,
 * cancel latency, the exec turn), then each agent's failures with what the spec requires. Not part of `npm test`:
 * it needs the registry and takes a while. Install code and pinned versions come from scripts/real-agents.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PromptBook, runAgentCheck, type CheckReport, type ScenarioResult } from "@acpkit/cli/check";
import { AGENTS, install, root, type AgentUnderTest } from "./real-agents.js";

const ACP = resolve("packages/cli/dist/src/cli/main.js");
const TURN_TIMEOUT_MS = 10_000;
const STARTUP_TIMEOUT_MS = 90_000;
const EXEC_DEADLINE_MS = 20_000;

interface ExecTurn {
  code: number | null;
  seconds: number;
  summary: string;
}

interface AgentOutcome {
  agent: AgentUnderTest;
  report?: CheckReport;
  didNotStart?: string;
  /** The check's --auth method is not one the agent offers. */
  badAuth?: string;
  exec?: ExecTurn;
}

function environment(agent: AgentUnderTest, home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "", HOME: home, ...agent.env };
}

/** The auth method the agent's exec turn logs in with (`--auth` in its execArgs), used by the check too. */
function authOf(agent: AgentUnderTest): string | undefined {
  const at = agent.execArgs.indexOf("--auth");
  return at === -1 ? undefined : agent.execArgs[at + 1];
}

function argvOf(agent: AgentUnderTest): string[] {
  return [join(root, "node_modules", ".bin", agent.bin), ...agent.args];
}

/** One `acp exec` turn; SIGINT after the deadline, as a user would; what it printed, cut short. */
function execTurn(agent: AgentUnderTest, home: string): Promise<ExecTurn> {
  const cwd = mkdtempSync(join(tmpdir(), `acpkit-interop-exec-${agent.name}-`));
  const started = performance.now();
  const command = argvOf(agent)
    .map((w) => `'${w}'`)
    .join(" ");
  const child = spawn(
    process.execPath,
    [
      ACP,
      "exec",
      ...agent.execArgs,
      "--agent",
      command,
      "--timeout",
      String(STARTUP_TIMEOUT_MS / 1000),
      "--format",
      "json",
      "Say hello in one short sentence.",
    ],
    { cwd, env: { ...environment(agent, home), NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (t: string) => (out += t));
  child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
  let interrupted = false;
  const timer = setTimeout(() => {
    interrupted = true;
    child.kill("SIGINT");
  }, EXEC_DEADLINE_MS);
  return new Promise((resolveTurn) => {
    child.once("close", (code) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      const seconds = (performance.now() - started) / 1000;
      let summary: string;
      try {
        const result = JSON.parse(out) as { stopReason: string | null; text: string; error: string | null };
        const how = result.stopReason
          ? `stopReason ${result.stopReason}`
          : `no stop reason (${result.error ?? "no error"})`;
        summary = `${
          interrupted ? `interrupted after ` + `${EXEC_DEADLINE_MS / 1000} s: ` : ""
        }${how}${result.text ? `; said ${JSON.stringify(result.text.slice(0, 60))}` : ""}`;
      } catch {
        summary = `${interrupted ? "interrupted; " : ""}${err.trim().split("\n").slice(-1)[0] ?? "no output"}`;
      }
      resolveTurn({ code, seconds, summary });
    });
  });
}

async function checkAgent(agent: AgentUnderTest): Promise<AgentOutcome> {
  const home = mkdtempSync(join(tmpdir(), `acpkit-interop-home-${agent.name}-`));
  try {
    process.stderr.write(`checking ${agent.name} (${agent.pkg}) ...\n`);
    const outcome = await runAgentCheck({
      target: {
        argv: argvOf(agent),
        env: environment(agent, home),
        startupTimeoutMs: STARTUP_TIMEOUT_MS,
        turnTimeoutMs: TURN_TIMEOUT_MS,
        version: "interop-report",
        ...(authOf(agent) !== undefined ? { auth: authOf(agent)! } : {}),
      },
      prompts: new PromptBook(),
      onResult: (r) => process.stderr.write(`  ${r.id}: ${r.status}\n`),
    });
    process.stderr.write(`driving one turn of ${agent.name} with acp exec ...\n`);
    const exec = await execTurn(agent, home);
    return {
      agent,
      report: outcome.report,
      ...(outcome.didNotStart ? { didNotStart: outcome.didNotStart } : {}),
      ...(outcome.badAuth ? { badAuth: outcome.badAuth } : {}),
      exec,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const ms = (value: number | undefined) =>
  value === undefined ? "-" : value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const measure = (report: CheckReport | undefined, key: string) =>
  report?.results.find((r) => key in r.measurements)?.measurements[key];

function row(o: AgentOutcome): string {
  const s = o.report?.summary;
  const failed = o.report?.results.filter((r) => r.status === "failed").map((r) => r.id) ?? [];
  const checks = s
    ? `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped, ${s["not-exercised"]} not exercised`
    : "-";
  const start = o.didNotStart ? `did not start` : ms(measure(o.report, "startupMs"));
  const exec = o.exec ? `exit ${o.exec.code} after ${o.exec.seconds.toFixed(1)} s: ${o.exec.summary}` : "-";
  return (
    `| \`${o.agent.pkg}\` | ${start} | ${checks} | ${failed.join(", ") || "none"} | ` +
    `${ms(measure(o.report, "cancelLatencyMs"))} | ${cell(exec)} |`
  );
}

function details(o: AgentOutcome): string {
  const lines = [`### ${o.agent.name}: \`${o.agent.pkg}\``, ""];
  if (o.didNotStart) lines.push(`The agent did not start: ${cell(o.didNotStart)}`, "");
  if (o.badAuth) lines.push(`Not checked: ${cell(o.badAuth)}.`, "");
  const info = o.report?.peerInfo as { name?: string; version?: string } | undefined;
  if (info)
    lines.push(
      `Reports itself as ${info.name ?? "?"} ${info.version ?? ""}; command ` +
        `\`${[o.agent.bin, ...o.agent.args].join(" ")}\`.`,
      "",
    );
  const by = (status: ScenarioResult["status"]) => o.report?.results.filter((r) => r.status === status) ?? [];
  for (const r of by("failed")) {
    lines.push(`- **${r.id}** failed: ${cell(r.message ?? "")} ([spec](${r.spec}))`);
    for (const f of r.findings.filter((f) => f.severity === "error").slice(0, 3))
      lines.push(`  - \`${f.rule}\`: ${cell(f.message)}${f.frame ? ` Frame: \`${cell(f.frame.slice(0, 160))}\`` : ""}`);
  }
  const notExercised = by("not-exercised");
  if (notExercised.length > 0)
    lines.push(
      `- not exercised: ${notExercised.map((r) => `${r.id} (${cell((r.message ?? "").split(";")[0]!)})`).join("; ")}`,
    );
  const skipped = by("skipped");
  if (skipped.length > 0) lines.push(`- skipped (not advertised): ${skipped.map((r) => r.id).join(", ")}`);
  const warnings = o.report?.results.flatMap((r) => r.warnings.map((w) => `${r.id}: ${w}`)) ?? [];
  for (const w of warnings.slice(0, 8)) lines.push(`- warning, ${cell(w)}`);
  const passed = by("passed");
  if (passed.length > 0) lines.push(`- passed: ${passed.map((r) => r.id).join(", ")}`);
  return lines.join("\n");
}

function render(outcomes: AgentOutcome[], date: string): string {
  return `# Interop report: real ACP agents from npm, offline

Generated on ${date} by \`npm run interop-report\` (scripts/interop-report.ts) with acpkit's \`acp check agent\` and one
turn driven by \`acp exec\`. Offline and with dummy keys: a real agent cannot reach its model, so prompt turns do not
complete and the scenarios that need one are "not exercised" (never "passed"); what can be checked without a model
(initialization, session setup, cancellation of a hung turn, bad input, extension methods) is. Prompt turns get
${TURN_TIMEOUT_MS / 1000} s; the exec turn is interrupted (SIGINT, as Ctrl-C) after ${EXEC_DEADLINE_MS / 1000} s. Versions are pinned in scripts/real-agents.ts.
An agent whose exec turn logs in with \`--auth\` (the method that takes its dummy key) is checked with the same
\`--auth\`. Not observable offline: an update sent after the prompt response (rule \`prompt.update-after-response\`)
shows only in a turn that completes, so for these agents it is neither seen nor ruled out.

| agent | start | checks | failed | cancel latency | acp exec turn |
| --- | --- | --- | --- | --- | --- |
${outcomes.map(row).join("\n")}

## Details

${outcomes.map(details).join("\n\n")}
`;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const agents = AGENTS.filter((a) => only.length === 0 || only.includes(a.name));
  install(agents);
  const outcomes: AgentOutcome[] = [];
  for (const agent of agents) outcomes.push(await checkAgent(agent));
  const file = resolve("docs/interop-report.md");
  writeFileSync(file, render(outcomes, new Date().toISOString().slice(0, 10)));
  process.stderr.write(`wrote ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`interop-report: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
