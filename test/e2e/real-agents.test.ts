/**
 * `acp exec` against the pinned real agents of `npm run real-agents` (installed into `.real-agents/`), offline with
 * dummy keys. Opt-in: set ACPKIT_REAL_AGENTS=1 (it takes minutes and needs the agents installed; the install needs
 * the npm registry). For each agent: it reaches a session or says exactly why not, the run ends within its bound,
 * and no process of the run is left behind (every process it started carries a marker in its environment, looked
 * for in /proc afterwards). Each result is printed as a test diagnostic, for the README's table.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { waitUntil } from "../../src/node/process/process-group.js";
import { REAL_AGENTS } from "./fixtures/real-agents.js";
import { ACP_CLI } from "./support/programs.js";

const ACP = ACP_CLI;
const BIN = resolve(fileURLToPath(new URL("../../../.real-agents/node_modules/.bin", import.meta.url)));
const enabled = process.env.ACPKIT_REAL_AGENTS === "1";
const STARTUP_S = 60;
const TIMEOUT_S = 90;
/** The bound, the cancel's grace, and the agent's stop (stdin, SIGTERM, SIGKILL): the longest a run may take. */
const LIMIT_MS = (TIMEOUT_S + 2 + 5) * 1000;

/** Pids of live processes whose environment holds `marker` (Linux /proc; our own user's processes). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(marker)) {
        const state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
        if (state !== "Z") found.push(Number(entry));
      }
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

for (const agent of REAL_AGENTS) {
  const installed = existsSync(join(BIN, agent.bin));
  const skip = !enabled
    ? "set ACPKIT_REAL_AGENTS=1 (after npm run real-agents) to run"
    : !installed
      ? `${agent.pkg} is not installed: npm run real-agents`
      : process.platform !== "linux"
        ? "needs /proc"
        : false;
  test(
    `acp exec against ${agent.pkg}: a session or a reason, within its bound, nothing left behind`,
    { skip, timeout: LIMIT_MS + 60_000 },
    async (t) => {
      const home = mkdtempSync(join(tmpdir(), `acpkit-real-home-${agent.name}-`));
      const cwd = mkdtempSync(join(tmpdir(), `acpkit-real-${agent.name}-`));
      const marker = `ACPKIT_REAL_AGENT_RUN=${randomUUID()}`;
      const [markerName, markerValue] = marker.split("=") as [string, string];
      try {
        const command = [join(BIN, agent.bin), ...agent.args].map((word) => `'${word}'`).join(" ");
        const args = [
          ACP,
          "exec",
          "--agent",
          command,
          "--cwd",
          cwd,
          "--format",
          "ndjson",
          "--startup-timeout",
          String(STARTUP_S),
          "--timeout",
          String(TIMEOUT_S),
          ...agent.execArgs,
          "Say hello.",
        ];
        // A clean environment, as a CI job would have: no sandbox hints from this machine leak into the agent.
        const env = { PATH: process.env.PATH ?? "", HOME: home, ...agent.env, [markerName]: markerValue };
        const started = Date.now();
        const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
        const code = await new Promise<number | null>((done) => child.once("close", (exitCode) => done(exitCode)));
        const seconds = (Date.now() - started) / 1000;
        const lines = stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map(
            (line) =>
              JSON.parse(line) as {
                type: string;
                sessionId?: string;
                error?: string | null;
                stopReason?: string | null;
                warnings?: string[];
              },
          );
        const session = lines.find((line) => line.type === "session");
        const result = lines.find((line) => line.type === "result");
        const reason = (result?.error ?? "").split("\n")[0];
        t.diagnostic(
          `${agent.pkg}: exit ${code} in ${seconds.toFixed(1)} s; ` +
            `${session ? `session ${session.sessionId}` : "no session"}; ` +
            (`stopReason ${result?.stopReason ?? "-"}; ` +
              `${reason ? `reason: ${reason}` : ""}${
                result?.warnings?.length ? `; warnings: ` + `${result.warnings.join(" | ")}` : ""
              }`),
        );
        assert.ok(Date.now() - started <= LIMIT_MS, `the run took ${seconds} s`);
        assert.ok(result !== undefined, `a result line; stderr:\n${stderr}`);
        assert.equal(result.type, "result");
        assert.ok([0, 1, 3, 4, 5, 6, 7, 124, 130].includes(code ?? -1), `a documented exit code, got ${code}`);
        if (session === undefined) assert.match(stderr, /^acp exec: .+/m, "no session: the reason is said");
        const left = await waitUntil(() => processesWith(marker).length === 0, 5000);
        assert.ok(left, `processes left behind: ${processesWith(marker).join(", ")}`);
      } finally {
        rmSync(home, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );
}
