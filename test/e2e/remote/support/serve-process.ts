/**
 * `acp serve` as a real child process: started with `--port 0`, its URL and token read from its stdout, its stderr
 * kept for assertions and diagnostics, and killed when the test process exits, whatever happened.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fixturePath, track } from "../../interop/support/spawn.js";
import { ACP_CLI } from "../../support/programs.js";

/** `acp`'s compiled entry point. */
export const ACP_MAIN = ACP_CLI;

/** The command line of the interop agent fixture (2.x app API) on acpkit, for `--agent`. */
export function fixtureAgentCommand(name = "interop-agent-app"): string {
  return [process.execPath, fixturePath(name), "--impl=acpkit"].map((part) => JSON.stringify(part)).join(" ");
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly webSocketUrl: string;
  readonly token: string | undefined;
  stderr(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stderr contains a line matching `pattern` (or rejects after `ms`). */
  waitForStderr(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Sends `signal` (default SIGTERM) and waits for the exit, SIGKILLing after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `acp serve --port 0 ...args`; resolves once it printed its URL. */
export async function startServe(args: readonly string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  // Diagnostics by hand: e.g. ACPKIT_SERVE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" (Node refuses those in
  // NODE_OPTIONS), or --inspect=0.
  const nodeArgs = process.env.ACPKIT_SERVE_NODE_ARGS?.split(/\s+/).filter((arg) => arg !== "") ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ACP_MAIN, "serve", "--port", "0", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  track(child);
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const wake of listeners) wake();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wake of listeners) wake();
    if (process.env.REMOTE_VERBOSE) process.stderr.write(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const waitFor = (read: () => string, pattern: RegExp, ms: number): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const match = read().match(pattern);
        if (!match) return;
        cleanup();
        resolve(match);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`acp serve: no ${pattern} within ${ms} ms; stdout:\n${stdout}\nstderr:\n${stderr}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      void exited.then(() => check());
      check();
    });
  const url = (await waitFor(() => stdout, /^url: (\S+)$/m, 20_000))[1]!;
  const webSocketUrl = (await waitFor(() => stdout, /^websocket: (\S+)$/m, 5000))[1]!;
  const token = stdout.match(/^token: (\S+)$/m)?.[1];
  return {
    child,
    url,
    webSocketUrl,
    token,
    stderr: () => stderr,
    exited,
    waitForStderr: (pattern, ms = 20_000) => waitFor(() => stderr, pattern, ms),
    stop: async (signal = "SIGTERM", graceMs = 15_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const status = await exited;
      clearTimeout(timer);
      return status;
    },
  };
}

/** Whether a process is still alive (signal 0). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Resolves once `pid` is gone, or rejects after `ms`. */
export async function waitForExit(pid: number, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still alive after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
