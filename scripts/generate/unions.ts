/**
 * Classifies the variants of an `anyOf` / `oneOf` so the validator emitter can dispatch on a tag instead of trying
 * variants one by one. A variant is
 *  - `tagged`: an object variant requiring property `tag` with a string `const` (ContentBlock's `type: "text"`);
 *  - `other`: the explicit catch-all of an extensible union: `tag` is any string, with a `not` that excludes exactly
 *    the known tags (ElicitationPropertySchema, CreateElicitationRequest, CreateElicitationResponse, MultiSelectItems);
 *  - `untagged`: anything else (McpServerStdio, AuthMethodAgent, TitledMultiSelectItems, EmbeddedResourceResource...).
 * Variants are returned reduced: the tag property and the `not` are removed, since dispatch has already decided them.
 */
import { type Schema, assertionKeys } from "./schema.js";

export type Variant =
  | { kind: "tagged"; tag: string; schema: Schema; original: Schema }
  | { kind: "other"; schema: Schema; original: Schema }
  | { kind: "untagged"; schema: Schema; original: Schema };

export interface TaggedUnion {
  /** The discriminating property, e.g. "sessionUpdate". */
  tag: string;
  variants: Variant[];
  knownTags: string[];
  other?: Variant;
  untagged: Variant[];
}

const analyzed = new WeakMap<Schema[], TaggedUnion | null>();

/**
 * Returns the tagged-union reading of `variants`, or undefined when no variant carries a const tag. Cached per
 * variants array, so every caller sees the same reduced variant objects.
 */
export function analyzeTaggedUnion(variants: Schema[], where: string, exclusive: boolean): TaggedUnion | undefined {
  const known = analyzed.get(variants);
  if (known !== undefined) return known ?? undefined;
  const result = analyze(variants, where, exclusive);
  analyzed.set(variants, result ?? null);
  return result;
}

function analyze(variants: Schema[], where: string, exclusive: boolean): TaggedUnion | undefined {
  const tags = new Set<string>();
  for (const v of variants) {
    const t = constTagOf(v);
    if (t) tags.add(t.prop);
  }
  if (tags.size === 0) return undefined;
  if (tags.size > 1) throw new Error(`${where}: variants are tagged on different properties: ${[...tags].join(", ")}`);
  const tag = [...tags][0]!;
  const out: Variant[] = [];
  const known: string[] = [];
  for (const v of variants) {
    const t = constTagOf(v);
    if (t) {
      if (known.includes(t.value)) throw new Error(`${where}: tag ${tag}=${t.value} appears twice`);
      known.push(t.value);
      out.push({ kind: "tagged", tag: t.value, schema: withoutTag(v, tag), original: v });
    } else if (v.not) {
      out.push({ kind: "other", schema: otherBody(v, tag, where), original: v });
    } else {
      out.push({ kind: "untagged", schema: v, original: v });
    }
  }
  const others = out.filter((v) => v.kind === "other");
  if (others.length > 1) throw new Error(`${where}: more than one catch-all variant`);
  const other = others[0];
  if (other) verifyExclusion(other.original, tag, known, where);
  const untagged = out.filter((v) => v.kind === "untagged");
  if (exclusive && (untagged.length > 0 || other)) {
    throw new Error(`${where}: oneOf with untagged or catch-all variants cannot be checked deterministically`);
  }
  return { tag, variants: out, knownTags: known, other, untagged };
}

/** `{ properties: { tag: { type: "string", const: "x" } }, required: [tag], ... }` -> { prop, value }. */
function constTagOf(v: Schema): { prop: string; value: string } | undefined {
  for (const [prop, s] of Object.entries(v.properties ?? {})) {
    if (typeof s.const === "string" && (v.required ?? []).includes(prop)) return { prop, value: s.const };
  }
  return undefined;
}

function withoutTag(v: Schema, tag: string): Schema {
  const props = { ...v.properties };
  delete props[tag];
  const out: Schema = { ...v, properties: props, required: (v.required ?? []).filter((r) => r !== tag) };
  if (Object.keys(props).length === 0) delete out.properties;
  if (out.required!.length === 0) delete out.required;
  if (out.type === "object") delete out.type; // dispatch has checked it
  return out;
}

/** The catch-all variant minus its tag (a plain string, already checked) and minus its `not`. */
function otherBody(v: Schema, tag: string, where: string): Schema {
  const tagSchema = v.properties?.[tag];
  if (!tagSchema || tagSchema.type !== "string" || assertionKeys(tagSchema).length !== 1) {
    throw new Error(`${where}: catch-all variant must require "${tag}" as a plain string`);
  }
  const out = withoutTag(v, tag);
  delete out.not;
  if (out.additionalProperties === true) delete out.additionalProperties;
  if (out.unevaluatedProperties === true) delete out.unevaluatedProperties;
  return out;
}

/** The catch-all's `not` must exclude exactly the known tags, or dispatching on the tag would change the meaning. */
function verifyExclusion(v: Schema, tag: string, known: string[], where: string): void {
  const list = v.not!.anyOf ?? v.not!.oneOf ?? [v.not!];
  const excluded = list.map((n) => {
    const t = constTagOf(n);
    if (!t || t.prop !== tag || assertionKeys(n).some((k) => !["type", "properties", "required"].includes(k))) {
      throw new Error(`${where}: catch-all "not" is not a plain list of excluded tags`);
    }
    return t.value;
  });
  const same = excluded.length === known.length && excluded.every((t) => known.includes(t));
  if (!same) throw new Error(`${where}: catch-all excludes [${excluded}] but the known tags are [${known}]`);
}

/**
 * Guard-function name for a variant: tag "form" -> "isForm"; untagged TitledMultiSelectItems in MultiSelectItems ->
 * "isTitled"; an inline untagged variant is named by its title.
 */
export function guardName(unionName: string, v: Variant, refOf: (s: Schema) => string | undefined): string {
  if (v.kind === "other") return "isCustom";
  if (v.kind === "tagged") return `is${camel(v.tag)}`;
  const ref = refOf(v.original);
  if (!ref && v.original.title) return `is${camel(v.original.title)}`; // IdleStateUpdate's `{ title: "none" }` -> isNone
  if (!ref) throw new Error(`${unionName}: cannot name a guard for an inline untagged variant without a title`);
  const stem = ref.endsWith(unionName) && ref !== unionName ? ref.slice(0, -unionName.length) : ref;
  return `is${stem}`;
}

function camel(tag: string): string {
  return tag
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}
