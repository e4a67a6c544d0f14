/**
 * Runs the real `acp exec` (packages/cli/dist/src/cli/main.js) as a child process and collects what it printed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isProcessAlive } from "../../../src/entries/node.js";
import { ACP_CLI } from "../support/programs.js";

export { DEMO_AGENT } from "../support/programs.js";
export const ACP = ACP_CLI;
export const EXEC_AGENT = fileURLToPath(new URL("../fixtures/exec-agent.js", import.meta.url));

/** `--agent` value for the fixture agent with extra flags. */
export function fixtureAgent(...flags: string[]): string {
  return [process.execPath, EXEC_AGENT, "--exec-agent", ...flags].map((word) => `'${word}'`).join(" ");
}

export interface ExecRun {
  child: ChildProcess;
  /** Resolves when the process exited and its output ended. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /**
   * Resolves once stdout (or stderr) contains `text`; rejects with both outputs after `timeoutMs` (30 s: the agent and
   * the exec start on a machine that may be running three test files at once).
   */
  waitFor(text: string, stream?: "stdout" | "stderr", timeoutMs?: number): Promise<void>;
}

export function startExec(
  args: readonly string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ExecRun {
  const child = spawn(process.execPath, [ACP, "exec", ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  const check = () => waiters.slice().forEach((waiter) => waiter());
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    check();
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    check();
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  else child.stdin!.end();
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
  return {
    child,
    done,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(text, stream = "stdout", timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `timed out waiting for ${JSON.stringify(text)} on ${stream}; stdout: ${stdout}\nstderr: ${stderr}`,
              ),
            ),
          timeoutMs,
        );
        const waiter = () => {
          if ((stream === "stdout" ? stdout : stderr).includes(text)) {
            clearTimeout(timer);
            waiters.splice(waiters.indexOf(waiter), 1);
            resolve();
          }
        };
        waiters.push(waiter);
        waiter();
      });
    },
  };
}

/** Runs `acp exec` to its end. */
export function runExec(
  args: readonly string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
) {
  return startExec(args, options).done;
}

/**
 * True while `pid` is a live process: `process.kill(pid, 0)` succeeds and it is not a zombie (an orphan that a
 * container's PID 1 has not reaped yet is dead).
 */
export function alive(pid: number): boolean {
  return isProcessAlive(pid);
}

export const QUIRK_AGENT = fileURLToPath(new URL("../fixtures/quirk-agent.js", import.meta.url));

/** `--agent` value for the quirk agent (test/e2e/fixtures/quirk-agent.ts) with extra flags. */
export function quirkAgent(...flags: string[]): string {
  return [process.execPath, QUIRK_AGENT, "--quirk-agent", ...flags].map((word) => `'${word}'`).join(" ");
}
