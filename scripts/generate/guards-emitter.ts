/**
 * Emits the variant guards the official SDK exports by name for its extensible unions (`CreateElicitationRequest`,
 * `CreateElicitationResponse`, `ElicitationPropertySchema`, `MultiSelectItems`, ...): one object per union whose
 * `isX` functions narrow a value to a variant after strictly validating that variant's payload.
 */
import type { LoadedSchema } from "./schema.js";
import { docComment, header, literal } from "./text.js";
import type { GuardSpec } from "./validator-emitter.js";

export function emitGuards(schema: LoadedSchema, specs: GuardSpec[], suffix: string): string {
  const out = [
    header([schema], "Validated type guards for the variants of extensible unions (same names as the official SDK)."),
    `import type * as types from "./types${suffix}.js";`,
    `import { guardTests as G } from "./validators${suffix}.js";`,
    "",
  ];
  for (const spec of specs) {
    const intro = [
      `Validated type guards for \`${spec.def}\`'s variants.`,
      "",
      "Each guard validates the variant's payload strictly, not just its tag: a known tag with a malformed payload",
      "matches no guard. Guards check the value as given; leniency repairs happen only in `parse`.",
    ].join("\n");
    out.push(docComment(spec.description).trimEnd(), `export type ${spec.def} = types.${spec.def};`);
    out.push(docComment(intro).trimEnd(), `export const ${spec.def} = {`);
    for (const g of spec.guards) {
      out.push(`  /** ${g.doc} */`);
      out.push(`  ${g.name}: (value: types.${spec.def}): value is ${g.predicate} =>`);
      out.push(`    G[${literal(g.key)}]!(value),`);
    }
    out.push("} as const;", "");
  }
  if (specs.length === 0) out.push("export {};", "");
  return out.join("\n");
}
