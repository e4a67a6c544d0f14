/**
 * Runs `acp check agent --format json -- <agent command>` for the page, as a child process (each scenario starts
 * the agent afresh, in its own temporary home: see docs/wire-tools.md), and hands back its JSON report.
 */
import { spawn } from "node:child_process";

export interface CheckRun {
  acpArgv: readonly string[];
  agent: readonly string[];
  cwd: string;
  only?: readonly string[] | undefined;
}

/** The report, or why there is none. Never rejects. */
export function runCheck(run: CheckRun): Promise<{ report?: unknown; error?: string }> {
  const [command, ...prefix] = run.acpArgv;
  const args = [
    ...prefix,
    "check",
    "agent",
    "--format",
    "json",
    ...(run.only && run.only.length > 0 ? ["--only", run.only.join(",")] : []),
    "--",
    ...run.agent,
  ];
  return new Promise((resolve) => {
    const child = spawn(command!, args, { cwd: run.cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.length < 8192) err += chunk.toString("utf8");
    });
    child.on("error", (error) => resolve({ error: `acp check could not start: ${error.message}` }));
    child.on("close", (code) => {
      const text = Buffer.concat(out).toString("utf8");
      try {
        resolve({ report: JSON.parse(text) });
      } catch {
        resolve({ error: `acp check ended with code ${code} without a report${err ? `: ${err.trim()}` : ""}` });
      }
    });
  });
}
