/**
 * Test helper: synthesizes valid sample values for a schema def, and the points where a sample can be broken, each
 * labelled with how a lenient parser should treat the break:
 *  - `strict`: the value is invalid for everyone;
 *  - `lenient`: the break sits under `x-deserialize-default-on-error` or in an `x-deserialize-skip-invalid-items`
 *    array, so lenient parsing repairs it while strict checking reports it;
 *  - `tag`: a discriminating tag becomes an unknown string in a union without a fallback (forward compatibility:
 *    lenient parsing keeps it, strict checking reports it).
 */
import type { JsonSchemaDoc } from "./repo.js";

export type Category = "strict" | "lenient" | "tag";

export interface BreakPoint {
  path: Array<string | number>;
  /** `undefined` deletes the property. */
  value: unknown;
  category: Category;
  /** The break sits where leniency applies (for `tag` breaks: zod may then drop the item instead of rejecting). */
  inLenient: boolean;
}

export interface Sample {
  value: unknown;
  points: BreakPoint[];
}

interface Ctx {
  doc: JsonSchemaDoc;
  seed: number;
  full: boolean;
  depth: number;
  path: Array<string | number>;
  lenient: boolean;
  points: BreakPoint[];
}

const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "discriminator",
  "x-side",
  "x-method",
  "x-docs-ignore",
  "x-deserialize-default-on-error",
  "x-deserialize-skip-invalid-items",
  "$schema",
]);

export function samplesFor(doc: JsonSchemaDoc, def: string, seeds = 4): Sample[] {
  const out = new Map<string, Sample>();
  for (const [seed, full] of [...Array.from({ length: seeds }, (_, i) => [i, true] as const), [0, false] as const]) {
    const ctx: Ctx = { doc, seed, full, depth: 0, path: [], lenient: false, points: [] };
    const value = synth({ $ref: `#/$defs/${def}` }, ctx);
    const key = JSON.stringify(value);
    if (!out.has(key)) out.set(key, { value, points: ctx.points });
  }
  return [...out.values()];
}

/** A deep copy of `value` with the break point applied. */
export function applyBreak(value: unknown, point: BreakPoint): unknown {
  const copy = structuredClone(value) as any;
  if (point.path.length === 0) return point.value;
  let node = copy;
  for (const seg of point.path.slice(0, -1)) node = node[seg];
  const last = point.path[point.path.length - 1]!;
  if (point.value === undefined) delete node[last];
  else node[last] = point.value;
  return copy;
}

function deref(doc: JsonSchemaDoc, node: any): any {
  while (node.$ref) node = doc.$defs[node.$ref.replace("#/$defs/", "")];
  if (node.allOf?.length === 1 && assertions(node).length === 1) return deref(doc, node.allOf[0]);
  return node;
}

function assertions(node: any): string[] {
  return Object.keys(node).filter((k) => !ANNOTATIONS.has(k));
}

function nullableInner(node: any): any {
  const list = node.anyOf ?? node.oneOf;
  if (list?.length === 2 && assertions(node).length === 1) {
    const nonNull = list.filter((v: any) => v.type !== "null");
    if (nonNull.length === 1) return nonNull[0];
  }
  return undefined;
}

function child(c: Ctx, seg: string | number, lenient: boolean): Ctx {
  return { ...c, depth: c.depth + 1, path: [...c.path, seg], lenient: c.lenient || lenient };
}

function synth(raw: any, c: Ctx): unknown {
  if (c.depth > 14) throw new Error(`sample too deep at ${c.path.join(".")}`);
  const node = deref(c.doc, raw);
  if (assertions(node).length === 0) return { any: "value" };
  const inner = nullableInner(node);
  if (inner) return synth(inner, c);
  if (node.const !== undefined) return node.const;
  if (node.enum) return node.enum[0];
  const types: string[] = node.type === undefined ? [] : [].concat(node.type);
  const union = node.anyOf ?? node.oneOf;
  const objectish = types.includes("object") || node.properties || node.allOf || (union && isObjectUnion(c.doc, union));
  if (objectish) {
    const obj: Record<string, unknown> = {};
    fill(node, c, obj);
    return obj;
  }
  if (union) return synth(union[c.seed % union.length], c);
  const t = types.find((x) => x !== "null") ?? "null";
  switch (t) {
    case "string":
      if (node.format === "uri") return "https://example.com/sample";
      if (node.format === "date-time") return "2026-11-26T09:30:00Z";
      return node.minLength ? "s".repeat(node.minLength) : "sample";
    case "integer":
      return Math.max(node.minimum ?? 1, 1);
    case "number":
      // Within the bounds when there are some (v2's `priority` is 0..1).
      if (node.maximum !== undefined && node.maximum < 1.5) return ((node.minimum ?? 0) + node.maximum) / 2;
      return Math.max(node.minimum ?? 1.5, 1.5);
    case "boolean":
      return true;
    case "array": {
      if (!node.items) return [];
      const skip = node["x-deserialize-skip-invalid-items"] === true;
      const item = synth(node.items, child(c, 0, skip));
      const bad = wrongFor(c.doc, node.items);
      if (bad !== NO_WRONG) {
        c.points.push({
          path: [...c.path, 0],
          value: bad,
          category: c.lenient || skip ? "lenient" : "strict",
          inLenient: c.lenient || skip,
        });
      }
      return [item];
    }
    default:
      return null;
  }
}

function isObjectUnion(doc: JsonSchemaDoc, variants: any[]): boolean {
  return variants.every((v) => {
    const d = deref(doc, v);
    return d.type === "object" || d.properties || d.allOf || (d.anyOf && isObjectUnion(doc, d.anyOf));
  });
}

/** Writes the properties of an object schema (own, allOf members, the chosen union variant) into `obj`. */
function fill(raw: any, c: Ctx, obj: Record<string, unknown>, tagOwner?: { fallback: boolean }): void {
  const node = deref(c.doc, raw);
  const required = new Set<string>(node.required ?? []);
  for (const [key, prop] of Object.entries<any>(node.properties ?? {})) {
    if (!required.has(key) && !c.full) continue;
    if (!required.has(key) && c.depth > 8) continue;
    const doe = prop["x-deserialize-default-on-error"] === true;
    const isTag = tagOwner !== undefined && typeof prop.const === "string";
    if (isTag && key in obj) continue;
    obj[key] = synth(prop, child(c, key, doe));
    const inLenient = c.lenient || doe;
    const category: Category = isTag && !tagOwner.fallback ? "tag" : inLenient ? "lenient" : "strict";
    const bad = wrongFor(c.doc, prop);
    if (bad !== NO_WRONG) c.points.push({ path: [...c.path, key], value: bad, category, inLenient });
    if (required.has(key)) {
      c.points.push({
        path: [...c.path, key],
        value: undefined,
        category: c.lenient ? "lenient" : "strict",
        inLenient: c.lenient,
      });
    }
  }
  if (node.additionalProperties && typeof node.additionalProperties === "object") {
    obj.key1 = synth(node.additionalProperties, child(c, "key1", false));
  }
  for (const member of node.allOf ?? []) fill(member, c, obj);
  const union = node.anyOf ?? node.oneOf;
  if (union) {
    const fallback = union.some((v: any) => !hasConstTag(c.doc, v));
    fill(union[c.seed % union.length], c, obj, { fallback });
  }
}

function hasConstTag(doc: JsonSchemaDoc, v: any): boolean {
  const d = deref(doc, v);
  return Object.entries<any>(d.properties ?? {}).some(
    ([k, p]) => typeof p.const === "string" && (d.required ?? []).includes(k),
  );
}

const NO_WRONG = Symbol("no wrong value");

/** A value the property's schema rejects (heuristic), or NO_WRONG when it accepts anything. */
function wrongFor(doc: JsonSchemaDoc, raw: any): unknown {
  const node = deref(doc, raw);
  if (assertions(node).length === 0) return NO_WRONG;
  const inner = nullableInner(node);
  if (inner) return wrongFor(doc, inner);
  if (node.const !== undefined || node.enum) return "wrong";
  const kinds = acceptedKinds(doc, node);
  if (!kinds.has("string")) return "wrong";
  if (!kinds.has("number")) return 12345;
  if (!kinds.has("boolean")) return true;
  return { wrong: true };
}

function acceptedKinds(doc: JsonSchemaDoc, raw: any, out = new Set<string>()): Set<string> {
  const node = deref(doc, raw);
  const types: string[] = node.type === undefined ? [] : [].concat(node.type);
  for (const t of types) out.add(t === "integer" ? "number" : t);
  if (typeof node.const === "string" || node.enum) out.add("string");
  for (const v of node.anyOf ?? node.oneOf ?? []) acceptedKinds(doc, v, out);
  for (const v of node.allOf ?? []) acceptedKinds(doc, v, out);
  if (node.properties) out.add("object");
  return out;
}
