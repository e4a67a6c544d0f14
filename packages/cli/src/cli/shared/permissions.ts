/**
 * `--permissions`: the permission policy a run uses, built from the client toolkit's policies.
 * - `allow-all`, `deny-all`, `allow-reads` (reads, searches, thinking and fetches allowed; the rest rejected);
 * - `ask`: asks the user, however the command asks (`acp exec` on the terminal, `acp chat` in its UI);
 * - `rules:FILE.json`: `{"rules": [{"kind": "edit", "path": "src/**", "decision": "allow"}, ...], "otherwise": "ask"}`
 *   (or just the array); first matching rule decides, `otherwise` (default `deny-all`) decides the rest.
 */
import { readFileSync } from "node:fs";
import {
  allowAll,
  allowReads,
  denyAll,
  rules,
  type PermissionPolicy,
  type PermissionRule,
} from "@acpkit/sdk/client-toolkit";
import { UsageError } from "./usage-error.js";

/** The policy names `--permissions` takes (besides `rules:FILE.json`). */
export const POLICIES = ["allow-all", "deny-all", "allow-reads", "ask"] as const;

/** A permission policy as named on the command line. */
export type PermissionsFlag = (typeof POLICIES)[number] | { rulesFile: string };

/** The policy and its name (shown beside each decision). */
export interface NamedPolicy {
  name: string;
  policy: PermissionPolicy;
}

/** How the command asks the user. */
export interface Asking {
  /** The `ask` policy; undefined when the user cannot be asked. */
  ask: (() => PermissionPolicy) | undefined;
  /** Why `ask` cannot be used (the end of the error message). */
  cannotAsk?: string;
}

/**
 * Builds the policy for a flag (undefined: `ask` when the user can be asked, else `allow-reads`). Throws `UsageError`.
 */
export function buildPolicy(flag: PermissionsFlag | undefined, asking: Asking): NamedPolicy {
  const chosen = flag ?? (asking.ask !== undefined ? "ask" : "allow-reads");
  if (typeof chosen === "object")
    return { name: `rules:${chosen.rulesFile}`, policy: rulesPolicy(chosen.rulesFile, asking) };
  return { name: chosen, policy: simplePolicy(chosen, asking) };
}

function simplePolicy(name: Exclude<PermissionsFlag, object>, asking: Asking): PermissionPolicy {
  switch (name) {
    case "allow-all":
      return allowAll();
    case "deny-all":
      return denyAll();
    case "allow-reads":
      return allowReads();
    case "ask":
      if (asking.ask === undefined)
        throw new UsageError(
          `--permissions ask ${asking.cannotAsk ?? "cannot ask here"}; use allow-all, deny-all, allow-reads ` +
            `or rules:FILE.json`,
        );
      return asking.ask();
  }
}

function rulesPolicy(file: string, asking: Asking): PermissionPolicy {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--permissions rules:${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(list))
    throw new UsageError(`--permissions rules:${file}: expected {"rules": [...]} or an array of rules`);
  list.forEach((rule, i) => {
    const decision = (rule as { decision?: unknown } | null)?.decision;
    if (decision !== "allow" && decision !== "reject" && decision !== "ask") {
      throw new UsageError(`--permissions rules:${file}: rules[${i}].decision must be "allow", "reject" or "ask"`);
    }
  });
  const otherwise = (parsed as { otherwise?: unknown }).otherwise ?? "deny-all";
  if (typeof otherwise !== "string" || !(POLICIES as readonly string[]).includes(otherwise)) {
    throw new UsageError(`--permissions rules:${file}: "otherwise" must be allow-all, deny-all, allow-reads or ask`);
  }
  const fallback = simplePolicy(otherwise as Exclude<PermissionsFlag, object>, asking);
  return rules(list as PermissionRule[], fallback);
}
