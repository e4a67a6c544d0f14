/** Runs the real `acp` command (packages/cli/dist/src/cli/main.js) as a child process and collects what it printed. */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ACP_CLI } from "../support/programs.js";

export const ACP = ACP_CLI;
export const FIXTURES = fileURLToPath(new URL("../fixtures/check/", import.meta.url));
export const REFERENCE_AGENT = [process.execPath, ACP, "agent"];
export const SDK_AGENT = [process.execPath, join(FIXTURES, "sdk-agent.js"), "--serve"];
export const faultyAgent = (fault: string) => [
  process.execPath,
  join(FIXTURES, "faulty-agent.js"),
  "--serve",
  "--fault",
  fault,
];
/** The configurable fixture agent (test/e2e/fixtures/check/configurable-agent.ts) with its flags. */
export const configurableAgent = (...flags: string[]) => [
  process.execPath,
  join(FIXTURES, "configurable-agent.js"),
  "--serve",
  ...flags,
];
export const faultyClient = (fault: string) => [
  process.execPath,
  join(FIXTURES, "faulty-client.js"),
  "--serve",
  "--fault",
  fault,
  "--agent",
  "{agent}",
  "hi",
];

/** A fresh real directory. */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `acp ARGS` to its end. */
export function acp(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [ACP, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin.end(options.stdin ?? "");
  return new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** The JSON report of an `acp check ... --format json` run, by scenario id. */
export function results(run: Run): Map<
  string,
  {
    status: string;
    message?: string;
    warnings: string[];
    findings: Array<{ rule: string; message: string; path?: string }>;
    measurements: Record<string, number>;
  }
> {
  let report: { results: Array<{ id: string; status: string }> };
  try {
    report = JSON.parse(run.stdout) as typeof report;
  } catch {
    throw new Error(`not a JSON report (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return new Map(report.results.map((r) => [r.id, r as never]));
}
