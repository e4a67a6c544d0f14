/**
 * The names only the unstable schema defines, for the stable entry: the official SDK 1.9.0 exported its whole schema
 * (unstable included: fork, providers, `Usage`, plans, subagents...) from its root, so code written for it names
 * them. The stable entry re-exports them as types (and the unstable-only variant guards as values); their wire
 * shapes stay unstable.
 */
import { loadSchema } from "./schema.js";
import { header } from "./text.js";
import { extensibleUnionNames } from "./validator-emitter.js";

export function emitUnstableExtras(repoRoot: string): string {
  const stable = loadSchema(repoRoot, "schema/v1/schema.json");
  const unstable = loadSchema(repoRoot, "schema/v1/schema.unstable.json");
  const only = Object.keys(unstable.defs).filter((name) => !(name in stable.defs));
  const guards = extensibleUnionNames(unstable).filter((name) => only.includes(name));
  const types = only.filter((name) => !guards.includes(name));
  const out = [
    header(
      [stable, unstable],
      "Unstable-only names, re-exported by the stable entry (as the official 1.9.0 root did).",
    ),
    "export type {",
    ...types.map((name) => `  ${name},`),
    '} from "./types.unstable.js";',
    "",
  ];
  if (guards.length) out.push(`export { ${guards.join(", ")} } from "./guards.unstable.js";`, "");
  return out.join("\n");
}

/**
 * The names only v2's unstable schema defines, as types for the v2 entry: the official SDK 1.9.0's
 * `experimental/v2` exported v2's whole schema (unstable included), so code written for it names them.
 */
export function emitV2UnstableExtras(repoRoot: string): string {
  const stable = loadSchema(repoRoot, "schema/v2/schema.json");
  const unstable = loadSchema(repoRoot, "schema/v2/schema.unstable.json");
  const only = Object.keys(unstable.defs).filter((name) => !(name in stable.defs));
  return [
    header(
      [stable, unstable],
      "Names only v2's unstable schema has, re-exported as types by the v2 entry (as the official 1.9.0's v2 " +
        "entry did).",
    ),
    "export type {",
    ...only.map((name) => `  ${name},`),
    '} from "./types.v2.unstable.js";',
    "",
  ].join("\n");
}
