/**
 * `acp exec --permissions`: the shared policies (../shared/permissions.ts), with `ask` asking on the terminal
 * (stdin must be a TTY), remembering "always" answers for the run.
 */
import { createInterface } from "node:readline";
import { interactive, sanitizeTerminalText as safe, withMemory } from "@acpkit/sdk/client-toolkit";
import type { RequestPermissionRequest } from "@acpkit/sdk";
import { buildPolicy, type NamedPolicy, type PermissionsFlag } from "../shared/permissions.js";

/** Whether the user can be asked (stdin and stderr are terminals). */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY) && Boolean(process.stderr.isTTY);
}

/** The policy for a flag (undefined: `ask` on a terminal, else `allow-reads`). Throws `UsageError`. */
export function execPolicy(flag: PermissionsFlag | undefined, promptFromStdin: boolean): NamedPolicy {
  const ask = canAsk() && !promptFromStdin ? () => withMemory(interactive(askOnTerminal)) : undefined;
  return buildPolicy(flag, { ask, cannotAsk: "needs an interactive terminal (and a prompt not read from stdin)" });
}

/** Asks on the terminal: lists the agent's options, reads a number or an option id. */
async function askOnTerminal(
  request: RequestPermissionRequest,
  context: { signal: AbortSignal },
): Promise<string | null> {
  const tool = request.toolCall;
  const lines = request.options.map((option, i) => `  ${i + 1}) ${safe(option.name)} [${safe(option.kind)}]`);
  process.stderr.write(
    `\nThe agent asks permission: ${safe(`${tool.title ?? tool.toolCallId}${tool.kind ? ` (${tool.kind})` : ""}`)}\n${lines.join("\n")}\n`,
  );
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    for (;;) {
      const answer = await new Promise<string | null>((resolve) => {
        const onAbort = () => resolve(null);
        context.signal.addEventListener("abort", onAbort, { once: true });
        rl.question("choice: ", (text) => {
          context.signal.removeEventListener("abort", onAbort);
          resolve(text.trim());
        });
        rl.once("close", () => resolve(null));
      });
      if (answer === null) return null;
      const index = Number(answer);
      if (Number.isInteger(index) && index >= 1 && index <= request.options.length)
        return request.options[index - 1]!.optionId;
      if (request.options.some((option) => option.optionId === answer)) return answer;
      process.stderr.write(`Type a number from 1 to ${request.options.length}.\n`);
    }
  } finally {
    rl.close();
  }
}
