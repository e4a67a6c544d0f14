/**
 * Assembles a generated validators module: one checker per def (`v_<Name>`), the helpers' constants, the
 * `CompiledSchema` object per def, and the strict variant tests behind the generated guards.
 */
import { type LoadedSchema, type Schema, soleRef } from "./schema.js";
import { header, literal, propKey } from "./text.js";
import { typeExpr } from "./types-emitter.js";
import { type TaggedUnion, type Variant, analyzeTaggedUnion, guardName } from "./unions.js";
import { Compiler } from "./validator-compiler.js";

export interface GuardSpec {
  def: string;
  description?: string;
  tag: string;
  guards: Array<{ name: string; key: string; doc: string; predicate: string }>;
}

export interface ValidatorOutput {
  /** `validators<suffix>.ts`: the `CompiledSchema` record and the guard tests, which build the checkers on first use. */
  code: string;
  /** `checkers<suffix>.ts`: the checker functions, made by a `build(kernel)` that imports nothing at run time. */
  checkers: string;
  guards: GuardSpec[];
}

const KERNEL_HELPERS = ["D", "E", "I", "K", "L", "M", "O", "R", "T", "U", "X", "Y", "Z"];

/**
 * Two modules per schema (issue 20, cold start): the checkers' code in `checkers<suffix>.ts`, a `build(kernel)` with no
 * run-time import, so that the published bundle can keep it in a file of its own that is read and compiled on the
 * first validation instead of at import (scripts/bundle-esm.mjs); and `validators<suffix>.ts`, the public record of
 * `CompiledSchema` objects (cheap, made at import) and the guard tests, which call `build` on first use.
 */
export function emitValidators(
  schema: LoadedSchema,
  schemasName: string,
  interfaceName: string,
  suffix: string,
): ValidatorOutput {
  const c = new Compiler(schema.defs);
  for (const name of Object.keys(schema.defs)) c.def(name);
  const guardSpecs: GuardSpec[] = [];
  const guardTests: string[] = [];
  for (const [name, def] of Object.entries(schema.defs)) {
    const union = extensibleUnion(def, name);
    if (!union) continue;
    guardSpecs.push(guardSpec(c, name, def, union, guardTests));
  }
  const body = [...c.constants, "", ...c.functions].join("\n");
  const all = `${body}\n${guardTests.join("\n")}`;
  const used = KERNEL_HELPERS.filter((h) => new RegExp(`\\b${h}\\b`).test(all));
  const indent = (line: string): string => (line.length > 0 ? `  ${line}` : line);
  const guardKeys = guardSpecs.flatMap((spec) => spec.guards.map((g) => g.key));
  const checkers = [
    header([schema], "Checkers: one per $defs entry (see src/protocol/validator-kernel.ts), made by `build`."),
    'import type * as Kernel from "../validator-kernel.js";',
    'import type { Checker } from "../validator-kernel.js";',
    "",
    "/** The checkers by def name and the strict variant tests behind the generated guards. */",
    "export interface Built {",
    "  checkers: Record<string, Checker>;",
    "  guardTests: Record<string, (value: any) => boolean>;",
    "}",
    "",
    "/**",
    " * Makes the checkers over the kernel it is given. No import at run time: the published bundle loads this module",
    ` * from a file of its own on the first validation (see validators${suffix}.ts and scripts/bundle-esm.mjs).`,
    " */",
    "export function build(kernel: typeof Kernel): Built {",
    `  const { ${used.join(", ")} } = kernel;`,
    ...body.split("\n").map(indent),
    "  const checkers: Record<string, Checker> = {",
    ...Object.keys(schema.defs).map((n) => `    ${propKey(n)}: v_${n},`),
    "  };",
    "  const guardTests: Record<string, (value: any) => boolean> = {",
    ...guardTests.map(indent),
    "  };",
    "  return { checkers, guardTests };",
    "}",
    "",
  ];
  const out = [
    header([schema], "Compiled validators: a `CompiledSchema` per $defs entry, checkers built on first use."),
    `import type * as types from "./types${suffix}.js";`,
    'import * as kernel from "../validator-kernel.js";',
    'import { type CompiledSchema, compileSchemas, lazyTests } from "../validation.js";',
    `import { type Built, build } from "./checkers${suffix}.js";`,
    "",
    "let built: Built | undefined;",
    "/** The checkers, made on the first validation rather than at import (issue 20, cold start). */",
    "const load = (): Built => (built ??= build(kernel));",
    "",
    "/** Defs whose `parse` accepts null/undefined as `{}` (objects without required properties). */",
    `const EMPTY_OK = new Set<string>(${literal(Object.keys(schema.defs).filter((n) => emptyOk(schema.defs[n]!)))});`,
    "",
    `/** A compiled schema for every def in ${schema.file} (a type literal, so it is indexable by string). */`,
    `export type ${interfaceName} = {`,
    ...Object.keys(schema.defs).map((n) => `  readonly ${propKey(n)}: CompiledSchema<types.${n}>;`),
    "};",
    "",
    `/** Compiled validators for every def in ${schema.file}: \`parse\` (lenient, in place), \`check\`, \`is\`. */`,
    `export const ${schemasName}: ${interfaceName} = compileSchemas(`,
    `  ${literal(Object.keys(schema.defs))},`,
    "  EMPTY_OK,",
    "  () => load().checkers,",
    `) as unknown as ${interfaceName};`,
    "",
    "/** Strict variant tests behind the generated guards (`generated/guards*.ts`). */",
    "export const guardTests: Readonly<Record<string, (value: any) => boolean>> = lazyTests(",
    `  ${literal(guardKeys)},`,
    "  () => load().guardTests,",
    ");",
    "",
  ];
  return { code: out.join("\n"), checkers: checkers.join("\n"), guards: guardSpecs };
}

/** An object with no required properties: `null` is accepted where such a result is expected. */
function emptyOk(def: Schema): boolean {
  return def.type === "object" && !def.required?.length && !def.anyOf && !def.oneOf && !def.allOf;
}

/** The defs that get variant guards (extensible unions), in def order. */
export function extensibleUnionNames(schema: LoadedSchema): string[] {
  return Object.entries(schema.defs)
    .filter(([name, def]) => extensibleUnion(def, name))
    .map(([name]) => name);
}

/** Unions with an explicit catch-all variant get guards, as in the official SDK. */
function extensibleUnion(def: Schema, name: string): TaggedUnion | undefined {
  const variants = def.anyOf ?? def.oneOf;
  if (!variants) return undefined;
  const u = analyzeTaggedUnion(variants, name, Boolean(def.oneOf));
  return u?.other ? u : undefined;
}

function guardSpec(c: Compiler, name: string, def: Schema, u: TaggedUnion, tests: string[]): GuardSpec {
  const tagAcc = `v[${literal(u.tag)}]`;
  const baseKeys = Object.keys(def.properties ?? {});
  const pick = baseKeys.length ? ` & Pick<types.${name}, ${baseKeys.map((k) => literal(k)).join(" | ")}>` : "";
  const spec: GuardSpec = { def: name, description: def.description, tag: u.tag, guards: [] };
  for (const v of u.variants) {
    const gname = guardName(name, v, soleRef);
    const key = `${name}.${gname}`;
    const fn = c.fnOf(c.node(v.schema, `${name}/${gname}`));
    const isObj = "O(v)";
    let test: string;
    if (v.kind === "tagged") test = `${isObj} && ${tagAcc} === ${literal(v.tag)} && T(${fn}, v)`;
    else if (v.kind === "other") {
      const notKnown = u.knownTags.map((t) => `${tagAcc} !== ${literal(t)}`).join(" && ");
      test = `${isObj} && typeof ${tagAcc} === "string" && ${notKnown} && T(${fn}, v)`;
    } else test = `T(${fn}, v)`;
    tests.push(`  ${literal(key)}: (v: any): boolean => ${test},`);
    spec.guards.push({ name: gname, key, doc: guardDoc(v, u.tag, gname), predicate: predicate(v, pick) });
  }
  return spec;
}

function predicate(v: Variant, pick: string): string {
  const t = typeExpr(v.original, "    ", "types.");
  const wrapped = pick && /[|&]/.test(t) ? `(${t})` : t;
  return `${wrapped}${pick}`;
}

function guardDoc(v: Variant, tag: string, gname: string): string {
  if (v.kind === "other")
    return `Narrow to a custom or future variant: the \`${tag}\` tag matches no known variant (payload validated).`;
  const label = v.kind === "tagged" ? v.tag : gname.slice(2).toLowerCase();
  return `Narrow to the \`${label}\` variant, validating its payload.`;
}
