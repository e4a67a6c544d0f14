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
  code: string;
  guards: GuardSpec[];
}

const KERNEL_HELPERS = ["D", "E", "I", "K", "L", "M", "O", "R", "T", "U", "X", "Y", "Z"];

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
  const out = [
    header([schema], "Compiled validators: one checker per $defs entry (see src/protocol/validator-kernel.ts)."),
    `import type * as types from "./types${suffix}.js";`,
    `import { type Checker, ${used.join(", ")} } from "../validator-kernel.js";`,
    'import { type CompiledSchema, compileSchemas } from "../validation.js";',
    "",
    body,
    "const checkers: Record<string, Checker> = {",
    ...Object.keys(schema.defs).map((n) => `  ${propKey(n)}: v_${n},`),
    "};",
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
    `export const ${schemasName}: ${interfaceName} = compileSchemas(checkers, EMPTY_OK) as unknown as ` +
      `${interfaceName};`,
    "",
    "/** Strict variant tests behind the generated guards (`generated/guards*.ts`). */",
    "export const guardTests: Readonly<Record<string, (value: any) => boolean>> = {",
    ...guardTests,
    "};",
    "",
  ];
  return { code: out.join("\n"), guards: guardSpecs };
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
