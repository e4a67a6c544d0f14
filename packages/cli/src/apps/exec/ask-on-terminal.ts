/**
 * `acp exec`'s `ask` permission policy: asks on the terminal (stdin and stderr must be terminals), remembering
 * "always" answers for the run. The other policies are the client toolkit's, chosen by `--permissions`.
 */
import { createInterface } from "node:readline";
import {
  interactive,
  sanitizeTerminalText as safe,
  withMemory,
  type PermissionPolicy,
} from "@acpkit/sdk/client-toolkit";
import type { RequestPermissionRequest } from "@acpkit/sdk";

/** Whether the user can be asked (stdin and stderr are terminals). */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY) && Boolean(process.stderr.isTTY);
}

/** The `ask` policy on this terminal: each permission request listed on stderr, answered on stdin. */
export function askOnTerminalPolicy(): PermissionPolicy {
  return withMemory(interactive(askOnTerminal));
}

/** Asks on the terminal: lists the agent's options, reads a number or an option id. */
async function askOnTerminal(
  request: RequestPermissionRequest,
  context: { signal: AbortSignal },
): Promise<string | null> {
  const tool = request.toolCall;
  const lines = request.options.map((option, i) => `  ${i + 1}) ${safe(option.name)} [${safe(option.kind)}]`);
  process.stderr.write(
    `\nThe agent asks permission: ` +
      `${safe(`${tool.title ?? tool.toolCallId}${tool.kind ? ` (${tool.kind})` : ""}`)}\n${lines.join("\n")}\n`,
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
