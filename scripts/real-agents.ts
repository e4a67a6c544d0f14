/**
 * How far do real ACP agents from npm get with acpkit's client, offline and without API keys?
 *
 *   npm run real-agents                    # installs the pinned versions into .real-agents/ (npm registry), then
 *   probes npm run real-agents -- claude-code     # only some agents
 *
 * For each agent: launch (own process group), initialize (with a deadline), session/new in a temp dir, one prompt
 * with a short deadline, session/cancel, stop. Prints what each step returned or why it failed, and a summary table.
 * Not part of `npm test`: it needs the registry and takes minutes. Versions are pinned (npm on Node 20 silently
 * installs older releases of packages that require Node 22); the list is test/e2e/fixtures/real-agents.ts, which
 * the opt-in e2e test (ACPKIT_REAL_AGENTS=1, test/e2e/real-agents.test.ts) runs `acp exec` against.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ClientSideConnection, type Client } from "../src/entries/index.js";
import { initializeWithDeadline, launchAgent } from "../src/entries/node.js";
import { REAL_AGENTS, type RealAgent } from "../test/e2e/fixtures/real-agents.js";

export type AgentUnderTest = RealAgent;

export const AGENTS: readonly AgentUnderTest[] = REAL_AGENTS;

export const root = resolve(".real-agents");
const only = process.argv.slice(2);
const selected = AGENTS.filter((a) => only.length === 0 || only.includes(a.name));

/** Installs the pinned packages of `agents` (default: those named on the command line) into .real-agents/. */
export function install(agents: readonly AgentUnderTest[] = selected): void {
  mkdirSync(root, { recursive: true });
  if (!existsSync(join(root, "package.json"))) writeFileSync(join(root, "package.json"), '{ "private": true }\n');
  process.stderr.write(`installing ${agents.map((a) => a.pkg).join(", ")} into ${root} ...\n`);
  const result = spawnSync("npm", ["install", "--no-audit", "--no-fund", ...agents.map((a) => a.pkg)], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.status !== 0)
    throw new Error(`npm install failed with code ${result.status}: check the registry is reachable`);
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), ok(v)),
      (e: unknown) => (clearTimeout(timer), fail(e)),
    );
  });
}

const brief = (value: unknown) => JSON.stringify(value).slice(0, 300);
const messageOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split("\n").slice(0, 6).join("\n    ");

async function probe(agent: AgentUnderTest): Promise<string[]> {
  const steps: string[] = [];
  const cwd = mkdtempSync(join(tmpdir(), `acpkit-real-${agent.name}-`));
  const home = mkdtempSync(join(tmpdir(), `acpkit-home-${agent.name}-`));
  const launched = await launchAgent({
    argv: [join(root, "node_modules", ".bin", agent.bin), ...agent.args],
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home, ...agent.env },
    startupTimeoutMs: 60_000,
  });
  const updates: string[] = [];
  const client: Client = {
    requestPermission: (p) => ({
      outcome: p.options[0] ? { outcome: "selected", optionId: p.options[0].optionId } : { outcome: "cancelled" },
    }),
    sessionUpdate: (n) => void updates.push(n.update.sessionUpdate),
  };
  const connection = new ClientSideConnection(() => client, launched.stream, { validateOutgoing: true });
  try {
    const init = await initializeWithDeadline(
      connection,
      {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "acpkit-real-agents", version: "0" },
      },
      launched,
      { timeoutMs: 60_000 },
    );
    steps.push(
      `initialize: ok, ${init.agentInfo?.name ?? "?"} ${init.agentInfo?.version ?? ""}, protocol ` +
        `v${init.protocolVersion}, auth methods ` +
        `${brief((init.authMethods ?? []).map((m) => ("id" in m ? m.id : m)))}`,
    );
    steps.push(`  capabilities ${brief(init.agentCapabilities)}`);
    const session = await withDeadline(connection.newSession({ cwd, mcpServers: [] }), 60_000, "session/new");
    steps.push(
      `session/new: ok, ` +
        `${session.sessionId}${session.modes ? `, modes ${session.modes.availableModes.map((m) => m.id).join("/")}` : ""}${session.configOptions ? `, ${session.configOptions.length} config options` : ""}`,
    );
    const prompt = connection.prompt({ sessionId: session.sessionId, prompt: [{ type: "text", text: "Say hello." }] });
    const outcome = await withDeadline(prompt, 20_000, "session/prompt").then(
      (r) => `stopReason ${r.stopReason}`,
      (e: unknown) => `failed: ${messageOf(e)}`,
    );
    steps.push(`session/prompt: ${outcome}; updates seen: ${[...new Set(updates)].join(", ") || "none"}`);
    await connection.cancel({ sessionId: session.sessionId }).catch(() => {});
  } catch (error) {
    steps.push(`stopped: ${messageOf(error)}`);
  } finally {
    connection.close("probe finished");
    await launched.stop();
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
  return steps;
}

async function main(): Promise<void> {
  install();
  for (const agent of selected) {
    process.stderr.write(`probing ${agent.name} (${agent.pkg}) ...\n`);
    const steps = await probe(agent).catch((error: unknown) => [`could not start: ${messageOf(error)}`]);
    process.stdout.write(`\n${agent.name} (${agent.pkg})\n${steps.map((s) => `  ${s}`).join("\n")}\n`);
  }
}

// Imported by scripts/interop-report.ts for AGENTS and install(): run only when started as a script.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((error: unknown) => {
    process.stderr.write(`real-agents: ${messageOf(error)}\n`);
    process.exitCode = 1;
  });
}
