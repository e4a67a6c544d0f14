/**
 * Drives a program in a real pseudo-terminal (through pty_driver.py and python3's `pty` module): type text and
 * keys, wait for text on the screen, read the screen as a person sees it (a `VirtualScreen` fed with everything
 * the program wrote). Not a test file: a helper for test/e2e/chat/*.test.ts.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { VirtualScreen } from "@acpkit/cli/testing";

/** The driver script, in the source tree (python files are not compiled into dist). */
const DRIVER = fileURLToPath(new URL("../../../../test/e2e/chat/pty_driver.py", import.meta.url));

export interface PtyOptions {
  columns?: number;
  rows?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export class PtySession {
  readonly screen: VirtualScreen;
  readonly child: ChildProcess;
  /** Everything the program wrote, escape codes included. */
  raw = "";
  readonly exited: Promise<number | null>;
  #waiters = new Set<() => void>();

  constructor(argv: readonly string[], options: PtyOptions = {}) {
    const columns = options.columns ?? 100;
    const rows = options.rows ?? 30;
    this.screen = new VirtualScreen(columns, rows);
    this.child = spawn("python3", [DRIVER, String(columns), String(rows), ...argv], {
      cwd: options.cwd,
      env: { TERM: "xterm-256color", ...(options.env ?? process.env) },
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (text: string) => {
      this.raw += text;
      this.screen.write(text);
      for (const waiter of [...this.#waiters]) waiter();
    });
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  /** Types text (or key sequences such as "\r", "\t", "\x03") into the terminal. */
  type(text: string): void {
    this.child.stdin!.write(text);
  }

  /** The screen and the scrollback above it, as text. */
  text(): string {
    return this.screen.history().join("\n");
  }

  /** Waits until `pattern` matches the screen text (scrollback included) or the output since `since`. */
  waitFor(pattern: RegExp, timeoutMs = 8000, since = 0): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (pattern.test(this.text()) || pattern.test(stripAnsi(this.raw.slice(since)))) {
          clearTimeout(timer);
          this.#waiters.delete(check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${pattern}; the screen reads:\n${this.text()}`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** Types `keys` every 250 ms until `pattern` shows (e.g. Tab until slash commands have arrived and complete). */
  async typeUntil(keys: string, pattern: RegExp, timeoutMs = 8000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      this.type(keys);
      try {
        return await this.waitFor(pattern, 250);
      } catch {
        // not yet: type again
      }
    }
    await this.waitFor(pattern, 1);
  }

  /** Waits until the screen's last line is the chat's idle prompt (`› `, maybe after `[Mode] `). */
  waitForPrompt(timeoutMs = 8000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const lines = this.screen.lines();
        if (/^(\[[^\]]+\] )?›$/.test(lines[lines.length - 1] ?? "")) {
          clearTimeout(timer);
          this.#waiters.delete(check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for the prompt; the screen reads:\n${this.text()}`));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** Kills the program if it is still running. */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, "");
}
