/**
 * Terminal authentication: runs the agent's own command with the method's `args` appended and its `env` added,
 * in the user's terminal (stdin and stderr inherited; its stdout goes to our stderr so that our stdout stays the
 * answer). A zero exit status is success; anything else is failure.
 *
 * See protocol docs: [Initialization](https://agentclientprotocol.com/protocol/initialization#authentication)
 */
import { spawn } from "node:child_process";
import type { AuthMethodTerminal } from "../../protocol/index.js";

/**
 * Runs `method` for the agent started as `agentArgv` in `cwd`. Resolves with the exit status; rejects if it cannot
 * start.
 */
export function runTerminalAuth(
  agentArgv: readonly string[],
  method: AuthMethodTerminal,
  cwd: string | undefined,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const argv = [...agentArgv, ...(method.args ?? [])];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      env: { ...process.env, ...method.env },
      stdio: ["inherit", 2, "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}
