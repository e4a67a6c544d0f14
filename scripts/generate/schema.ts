/**
 * Loading the vendored ACP JSON Schema and answering questions about it: `$ref` resolution, the keyword audit that
 * makes generation fail on anything we do not know how to compile, and small structural predicates the emitters share.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** One JSON Schema node, as found in the vendored files. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  unevaluatedProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  description?: string;
  title?: string;
  discriminator?: { propertyName: string };
  "x-side"?: string;
  "x-method"?: string;
  "x-deserialize-default-on-error"?: boolean;
  "x-deserialize-default-on-null"?: boolean;
  "x-deserialize-skip-invalid-items"?: boolean;
  "x-docs-ignore"?: boolean;
}

export interface LoadedSchema {
  /** Path relative to the repository root, e.g. "schema/v1/schema.json". */
  readonly file: string;
  readonly sha256: string;
  readonly root: Schema & { $defs: Record<string, Schema> };
  readonly defs: Record<string, Schema>;
}

/** Keywords that change what a value may be. Each one is compiled by the validator emitter. */
const ASSERTION_KEYWORDS = new Set([
  "$ref",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "const",
  "enum",
  "format",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
]);
/** Keywords that annotate: documentation, leniency hints, method names, defaults. */
const ANNOTATION_KEYWORDS = new Set([
  "$schema",
  "$defs",
  "title",
  "description",
  "default",
  "discriminator",
  "x-side",
  "x-method",
  "contentEncoding",
  "x-deserialize-default-on-error",
  "x-deserialize-default-on-null",
  "x-deserialize-skip-invalid-items",
  "x-docs-ignore",
]);
export const SUPPORTED_FORMATS = new Set([
  "int64",
  "int32",
  "uint16",
  "uint32",
  "uint64",
  "double",
  "uri",
  "regex",
  "date-time",
]);
const SCHEMA_VALUED = new Set(["additionalProperties", "unevaluatedProperties", "items", "not"]);
const SCHEMA_LIST_VALUED = new Set(["allOf", "anyOf", "oneOf"]);

export function loadSchema(repoRoot: string, file: string): LoadedSchema {
  const text = readFileSync(`${repoRoot}/${file}`, "utf8");
  const root = JSON.parse(text) as LoadedSchema["root"];
  if (!root.$defs) throw new Error(`${file}: no $defs`);
  auditKeywords(root, file);
  return { file, sha256: createHash("sha256").update(text).digest("hex"), root, defs: root.$defs };
}

export function loadJson<T>(repoRoot: string, file: string): { value: T; sha256: string } {
  const text = readFileSync(`${repoRoot}/${file}`, "utf8");
  return { value: JSON.parse(text) as T, sha256: createHash("sha256").update(text).digest("hex") };
}

/** Fails loudly on any keyword, format or annotation placement the generator does not handle. */
export function auditKeywords(node: Schema, where: string, isProperty = false): void {
  for (const [key, value] of Object.entries(node)) {
    const at = `${where}/${key}`;
    if (!ASSERTION_KEYWORDS.has(key) && !ANNOTATION_KEYWORDS.has(key)) {
      throw new Error(`unknown JSON Schema keyword "${key}" at ${where}: teach scripts/generate about it`);
    }
    if (key === "format" && !SUPPORTED_FORMATS.has(value as string)) {
      throw new Error(`unsupported format "${String(value)}" at ${where}`);
    }
    if (key === "$defs" || key === "properties") {
      const props = key === "properties";
      for (const [name, sub] of Object.entries(value as Record<string, Schema>))
        auditKeywords(sub, `${at}/${name}`, props);
    } else if (SCHEMA_LIST_VALUED.has(key)) {
      (value as Schema[]).forEach((sub, i) => auditKeywords(sub, `${at}/${i}`));
    } else if (SCHEMA_VALUED.has(key) && typeof value === "object" && value !== null) {
      auditKeywords(value as Schema, at);
    }
  }
  if (node["x-deserialize-default-on-error"] && !isProperty) {
    throw new Error(`x-deserialize-default-on-error outside an object property at ${where}`);
  }
  if (
    node["x-deserialize-default-on-null"] &&
    (!isProperty || !["array", "object"].some((t) => typeList(node).includes(t)))
  ) {
    throw new Error(`x-deserialize-default-on-null outside an array or object property at ${where}`);
  }
  if (node["x-deserialize-skip-invalid-items"] && !typeList(node).includes("array")) {
    throw new Error(`x-deserialize-skip-invalid-items on a non-array schema at ${where}`);
  }
}

export function refName(ref: string): string {
  const m = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!m) throw new Error(`unsupported $ref ${ref}`);
  return m[1]!;
}

export function typeList(s: Schema): string[] {
  return s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
}

/** The `$ref` target name when a schema is just `{ $ref }` or `{ allOf: [{ $ref }] }` (annotations aside). */
export function soleRef(s: Schema): string | undefined {
  const keys = assertionKeys(s);
  if (keys.length === 1 && keys[0] === "$ref") return refName(s.$ref!);
  if (keys.length === 1 && keys[0] === "allOf" && s.allOf!.length === 1) return soleRef(s.allOf![0]!);
  return undefined;
}

export function assertionKeys(s: Schema): string[] {
  return Object.keys(s).filter((k) => ASSERTION_KEYWORDS.has(k));
}

/** `anyOf: [X, { type: "null" }]` -> X. */
export function nullableInner(s: Schema): Schema | undefined {
  const list = s.anyOf ?? s.oneOf;
  if (!list || list.length !== 2 || assertionKeys(s).length !== 1) return undefined;
  const nulls = list.filter(isNullSchema);
  if (nulls.length !== 1) return undefined;
  return list.find((x) => !isNullSchema(x));
}

export function isNullSchema(s: Schema): boolean {
  const keys = assertionKeys(s);
  return keys.length === 1 && s.type === "null";
}

/** A property schema that does nothing but allow any value (`{}` or annotations only). */
export function isAnything(s: Schema): boolean {
  return assertionKeys(s).length === 0;
}

/** Every def name reachable from `name` through `$ref`, including `name`. */
export function refClosure(defs: Record<string, Schema>, name: string, into = new Set<string>()): Set<string> {
  if (into.has(name)) return into;
  into.add(name);
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === "object") {
      for (const [k, v] of Object.entries(n)) {
        if (k === "$ref" && typeof v === "string") refClosure(defs, refName(v), into);
        else walk(v);
      }
    }
  };
  walk(defs[name]);
  return into;
}
