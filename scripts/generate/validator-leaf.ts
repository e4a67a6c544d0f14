/**
 * Leaves: schemas checkable by one side-effect-free boolean expression (primitive types, const, enum, formats,
 * numeric bounds, string lengths and patterns, unstructured objects/arrays, and unions of those). The emitter inlines
 * them at every use, so `sessionId: SessionId` costs one `typeof`.
 */
import { type Schema, assertionKeys, typeList } from "./schema.js";
import { literal } from "./text.js";

export interface Leaf {
  /** Expected-value description for error messages. */
  desc: string;
  /** Boolean expression over the value expression `x` (a plain identifier; may be evaluated several times). */
  pure: (x: string) => string;
}

const LEAF_KEYS = new Set([
  "type",
  "const",
  "enum",
  "format",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "additionalProperties",
]);

interface Range {
  lo?: number;
  hi?: number;
  hiExclusive?: boolean;
}

const FORMAT_RANGES: Record<string, Range> = {
  int32: { lo: -2147483648, hi: 2147483647 },
  uint16: { lo: 0, hi: 65535 },
  uint32: { lo: 0, hi: 4294967295 },
  int64: { lo: -(2 ** 63), hi: 2 ** 63, hiExclusive: true },
  uint64: { lo: 0, hi: 2 ** 64, hiExclusive: true },
};

/** Registers a RegExp for `pattern` and returns the name of the module-level constant holding it. */
export type PatternRegistry = (pattern: string) => string;

export function leafOf(s: Schema, patterns: PatternRegistry): Leaf | undefined {
  const keys = assertionKeys(s);
  if (keys.length === 0) return undefined; // "anything" is handled by the caller
  if (!keys.every((k) => LEAF_KEYS.has(k))) return undefined;
  if (s.additionalProperties !== undefined && s.additionalProperties !== true) return undefined;
  const types = typeList(s);
  if (s.const !== undefined) return constLeaf(s.const, types);
  if (s.enum) return enumLeaf(s.enum);
  if (types.length === 0) return undefined;
  // null first: `x === null || typeof x === "object" && ...` reads well and lets the object clause skip its null test
  const ordered = types.includes("null") ? ["null", ...types.filter((t) => t !== "null")] : types;
  const clauses = ordered.map((t) => typeClause(t, s, patterns, types.includes("null")));
  return {
    desc: types.map((t) => clauses[ordered.indexOf(t)]!.desc).join(" | "),
    pure: (x) => (clauses.length === 1 ? clauses[0]!.pure(x) : clauses.map((c) => `(${c.pure(x)})`).join(" || ")),
  };
}

/** A union of leaves: `x` passes if any variant does. Consts that a non-const variant already accepts are dropped. */
export function unionLeaf(leaves: Leaf[], variants: Schema[]): Leaf {
  const pairs = leaves.map((l, i) => ({ l, v: variants[i]! }));
  const open = pairs.filter((p) => p.v.const === undefined);
  const kept = pairs.filter((p) => p.v.const === undefined || !open.some((o) => accepts(o.l, p.v.const)));
  const allConst = kept.every((p) => p.v.const !== undefined);
  const descs = dedupe(kept.map((p) => p.l.desc));
  const desc = allConst && descs.length > 1 ? `one of ${descs.join(", ")}` : descs.join(" | ");
  return {
    desc,
    pure: (x) => (kept.length === 1 ? kept[0]!.l.pure(x) : kept.map((p) => `(${p.l.pure(x)})`).join(" || ")),
  };
}

/** Evaluates a leaf's expression at generation time (false when it needs runtime helpers). */
function accepts(leaf: Leaf, value: unknown): boolean {
  try {
    return Boolean(new Function("x", `return ${leaf.pure("x")};`)(value));
  } catch {
    return false;
  }
}

function constLeaf(c: unknown, types: string[]): Leaf {
  if (c !== null && typeof c === "object") throw new Error("object/array const is not supported");
  if (types.length && !types.some((t) => matchesType(c, t))) throw new Error(`const ${literal(c)} contradicts type`);
  return { desc: literal(c), pure: (x) => `${x} === ${literal(c)}` };
}

function enumLeaf(values: unknown[]): Leaf {
  for (const v of values)
    if (v !== null && typeof v === "object") throw new Error("object/array enum value is not supported");
  const desc = values.length === 1 ? literal(values[0]) : `one of ${values.map(literal).join(", ")}`;
  return { desc, pure: (x) => values.map((v) => `${x} === ${literal(v)}`).join(" || ") };
}

function matchesType(c: unknown, t: string): boolean {
  if (t === "integer") return Number.isInteger(c);
  if (t === "null") return c === null;
  return typeof c === t;
}

function typeClause(t: string, s: Schema, patterns: PatternRegistry, nullFirst: boolean): Leaf {
  switch (t) {
    case "null":
      return { desc: "null", pure: (x) => `${x} === null` };
    case "boolean":
      return { desc: "boolean", pure: (x) => `typeof ${x} === "boolean"` };
    case "object":
      if (nullFirst) return { desc: "object", pure: (x) => `typeof ${x} === "object" && !Array.isArray(${x})` };
      return { desc: "object", pure: (x) => `typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x})` };
    case "array":
      return { desc: "array", pure: (x) => `Array.isArray(${x})` };
    case "string":
      return stringClause(s, patterns);
    case "integer":
    case "number":
      return numberClause(t, s);
    default:
      throw new Error(`unknown type ${t}`);
  }
}

function stringClause(s: Schema, patterns: PatternRegistry): Leaf {
  const tests: Array<(x: string) => string> = [(x) => `typeof ${x} === "string"`];
  const notes: string[] = [];
  if (s.minLength !== undefined) {
    const n = s.minLength;
    tests.push(n <= 1 ? (x) => `${x}.length >= ${n}` : (x) => `L(${x}) >= ${n}`);
    notes.push(`at least ${n} character${n === 1 ? "" : "s"}`);
  }
  if (s.maxLength !== undefined) {
    const n = s.maxLength;
    tests.push((x) => `(${x}.length <= ${n} || L(${x}) <= ${n})`);
    notes.push(`at most ${n} characters`);
  }
  if (s.pattern !== undefined) {
    const re = patterns(s.pattern);
    tests.push((x) => `${re}.test(${x})`);
    notes.push(`matching /${s.pattern}/`);
  }
  if (s.format === "date-time") {
    // RFC 3339 date-time with an offset (what the official SDK's zod `iso.datetime({ offset: true })` accepts).
    const re = patterns(RFC3339_DATE_TIME);
    tests.push((x) => `${re}.test(${x})`);
    notes.push("an RFC 3339 date-time");
  }
  const desc = notes.length ? `string (${notes.join(", ")})` : "string";
  return { desc, pure: (x) => tests.map((f) => f(x)).join(" && ") };
}

/** RFC 3339 `date-time`: date, `T`, time with optional fraction, `Z` or a numeric offset; fields in range. */
const RFC3339_DATE_TIME =
  "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])[Tt]([01]\\d|2[0-3]):[0-5]\\d:([0-5]\\d|60)(\\.\\d+)?([Zz]|[+-]([01]\\d|2[0-3]):[0-5]\\d)$";

function numberClause(t: string, s: Schema): Leaf {
  const base = FORMAT_RANGES[s.format ?? ""] ?? {};
  const range: Range = { ...base };
  if (s.minimum !== undefined && (range.lo === undefined || s.minimum > range.lo)) range.lo = s.minimum;
  if (
    s.maximum !== undefined &&
    (range.hi === undefined || s.maximum < range.hi || (s.maximum === range.hi && range.hiExclusive))
  ) {
    range.hi = s.maximum;
    range.hiExclusive = false;
  }
  const head =
    t === "integer"
      ? (x: string) => `typeof ${x} === "number" && Number.isInteger(${x})`
      : (x: string) => `typeof ${x} === "number" && Number.isFinite(${x})`;
  const parts: Array<(x: string) => string> = [head];
  if (range.lo !== undefined) parts.push((x) => `${x} >= ${num(range.lo!)}`);
  if (range.hi !== undefined) parts.push((x) => `${x} ${range.hiExclusive ? "<" : "<="} ${num(range.hi!)}`);
  const notes: string[] = [];
  if (s.format && s.format !== "double") notes.push(s.format);
  if (s.minimum !== undefined && s.minimum !== base.lo) notes.push(`>= ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum !== base.hi) notes.push(`<= ${s.maximum}`);
  const desc = notes.length ? `${t === "integer" ? "integer" : "number"} (${notes.join(", ")})` : t;
  return { desc, pure: (x) => parts.map((f) => f(x)).join(" && ") };
}

function num(n: number): string {
  if (n === 2 ** 63) return "9223372036854775808";
  if (n === -(2 ** 63)) return "-9223372036854775808";
  if (n === 2 ** 64) return "18446744073709551616";
  return String(n);
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}
