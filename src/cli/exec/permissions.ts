/**
 * `--permissions`: the permission policy a run uses, built from the client toolkit's policies.
 * - `allow-all`, `deny-all`, `allow-reads` (reads, searches, thinking and fetches allowed; the rest rejected);
 * - `ask`: asks on the terminal (stdin must be a TTY), remembering "always" answers for the run;
 * - `rules:FILE.json`: `{"rules": [{"kind": "edit", "path": "src/**", "decision": "allow"}, ...], "otherwise": "ask"}`
 *   (or just the array); first matching rule decides, `otherwise` (default `deny-all`) decides the rest.
 */
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { allowAll, allowReads, denyAll, interactive, rules, withMemory, type PermissionPolicy, type PermissionRule } from "../../client/toolkit/index.js";
import type { RequestPermissionRequest } from "../../protocol/index.js";
import { UsageError, type PermissionsFlag } from "./args.js";

/** The policy and its name (shown beside each decision). */
export interface NamedPolicy {
  name: string;
  policy: PermissionPolicy;
}

/** Whether the user can be asked (stdin and stderr are terminals). */
export function canAsk(): boolean {
  return Boolean(process.stdin.isTTY) && Boolean(process.stderr.isTTY);
}

/** Builds the policy for a flag (undefined: `ask` on a terminal, else `allow-reads`). Throws `UsageError`. */
export function buildPolicy(flag: PermissionsFlag | undefined, promptFromStdin: boolean): NamedPolicy {
  const chosen = flag ?? (canAsk() && !promptFromStdin ? "ask" : "allow-reads");
  if (typeof chosen === "object") return { name: `rules:${chosen.rulesFile}`, policy: rulesPolicy(chosen.rulesFile, promptFromStdin) };
  return { name: chosen, policy: simplePolicy(chosen, promptFromStdin) };
}

function simplePolicy(name: Exclude<PermissionsFlag, object>, promptFromStdin: boolean): PermissionPolicy {
  switch (name) {
    case "allow-all":
      return allowAll();
    case "deny-all":
      return denyAll();
    case "allow-reads":
      return allowReads();
    case "ask":
      if (!canAsk() || promptFromStdin) {
        throw new UsageError("--permissions ask needs an interactive terminal (and a prompt not read from stdin); use allow-all, deny-all, allow-reads or rules:FILE.json");
      }
      return withMemory(interactive(askOnTerminal));
  }
}

function rulesPolicy(file: string, promptFromStdin: boolean): PermissionPolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--permissions rules:${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list)) throw new UsageError(`--permissions rules:${file}: expected {"rules": [...]} or an array of rules`);
  list.forEach((rule, i) => {
    const decision = (rule as { decision?: unknown } | null)?.decision;
    if (decision !== "allow" && decision !== "reject" && decision !== "ask") {
      throw new UsageError(`--permissions rules:${file}: rules[${i}].decision must be "allow", "reject" or "ask"`);
    }
  });
  const otherwise = (parsed as { otherwise?: unknown }).otherwise ?? "deny-all";
  if (typeof otherwise !== "string" || !["allow-all", "deny-all", "allow-reads", "ask"].includes(otherwise)) {
    throw new UsageError(`--permissions rules:${file}: "otherwise" must be allow-all, deny-all, allow-reads or ask`);
  }
  const fallback = simplePolicy(otherwise as Exclude<PermissionsFlag, object>, promptFromStdin);
  return rules(list as PermissionRule[], fallback);
}

/** Asks on the terminal: lists the agent's options, reads a number or an option id. */
async function askOnTerminal(request: RequestPermissionRequest, context: { signal: AbortSignal }): Promise<string | null> {
  const tool = request.toolCall;
  const lines = request.options.map((option, i) => `  ${i + 1}) ${option.name} [${option.kind}]`);
  process.stderr.write(`\nThe agent asks permission: ${tool.title ?? tool.toolCallId}${tool.kind ? ` (${tool.kind})` : ""}\n${lines.join("\n")}\n`);
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
      if (Number.isInteger(index) && index >= 1 && index <= request.options.length) return request.options[index - 1]!.optionId;
      if (request.options.some((option) => option.optionId === answer)) return answer;
      process.stderr.write(`Type a number from 1 to ${request.options.length}.\n`);
    }
  } finally {
    rl.close();
  }
}
