/**
 * fast-check generators driven by the ACP JSON Schema: `arbitraryFor(defs, name)` yields values valid against
 * `$defs[name]` (refs, allOf, anyOf/oneOf, const, enum, types, formats and bounds, required and optional
 * properties, maps). Extra unknown properties are added where the schema allows them (forward compatibility).
 * For tests only.
 */
import fc from "fast-check";

type Schema = { [key: string]: unknown };
export type Defs = Record<string, Schema>;

const INTEGER_FORMATS: Record<string, [number, number]> = {
  uint16: [0, 65535],
  uint32: [0, 4294967295],
  uint64: [0, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const smallJson = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/** Merges generated parts of an `allOf`: objects are combined, anything else is the last part. */
function merge(parts: unknown[]): unknown {
  if (parts.every((p) => typeof p === "object" && p !== null && !Array.isArray(p))) return Object.assign({}, ...parts);
  return parts[parts.length - 1];
}

export function arbitraryFor(defs: Defs, name: string, maxDepth = 4): fc.Arbitrary<unknown> {
  const cache = new Map<string, fc.Arbitrary<unknown>>();
  const of = (schema: Schema, depth: number): fc.Arbitrary<unknown> => {
    if (typeof schema.$ref === "string") {
      const ref = schema.$ref.replace("#/$defs/", "");
      const key = `${ref}@${Math.min(depth, maxDepth + 1)}`;
      let arb = cache.get(key);
      if (!arb) {
        const target = defs[ref];
        if (!target) throw new Error(`unknown $ref ${schema.$ref}`);
        arb = of(target, depth + 1);
        cache.set(key, arb);
      }
      return arb;
    }
    if ("const" in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    if (Array.isArray(schema.allOf)) {
      const parts = (schema.allOf as Schema[]).map((s) => of(s, depth));
      const own = schema.properties || schema.type ? [of({ ...schema, allOf: undefined }, depth)] : [];
      return fc.tuple(...parts, ...own).map(merge);
    }
    const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (Array.isArray(variants) && (schema.properties !== undefined || schema.required !== undefined)) {
      // Properties beside the variants: both hold (the shared part and one variant's part, merged).
      const base = of({ ...schema, anyOf: undefined, oneOf: undefined, discriminator: undefined }, depth);
      const variant = of({ anyOf: variants }, depth);
      return fc.tuple(base, variant).map(merge);
    }
    if (Array.isArray(variants)) {
      // Deep in recursion, prefer the variants that do not recurse (null, strings).
      const usable = depth > maxDepth ? variants.filter((v) => !("$ref" in v) || variants.length === 1) : variants;
      const rest = { ...schema, anyOf: undefined, oneOf: undefined, discriminator: undefined, description: undefined };
      return fc.oneof(...(usable.length > 0 ? usable : variants).map((v) => of({ ...rest, ...v }, depth)));
    }
    const type = schema.type;
    if (Array.isArray(type)) return fc.oneof(...type.map((t) => of({ ...schema, type: t }, depth)));
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "string": {
        if (schema.format === "date-time") {
          // RFC 3339, as toISOString writes it (years kept to four digits).
          return fc
            .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-12-31T23:59:59Z"), noInvalidDate: true })
            .map((d) => d.toISOString());
        }
        const minLength = typeof schema.minLength === "number" ? schema.minLength : 0;
        const maxLength = typeof schema.maxLength === "number" ? schema.maxLength : Math.max(12, minLength);
        if (typeof schema.pattern === "string") {
          const pattern = new RegExp(schema.pattern as string);
          return fc.string({ minLength, maxLength, unit: "binary-ascii" }).filter((text) => pattern.test(text));
        }
        // A bounded length is counted in UTF-16 units: ASCII keeps the count exact; otherwise any graphemes.
        return fc.string({
          minLength,
          maxLength,
          unit: typeof schema.maxLength === "number" ? "binary-ascii" : "grapheme",
        });
      }
      case "integer": {
        const [lo, hi] = INTEGER_FORMATS[schema.format as string] ?? [-1e6, 1e6];
        const min = typeof schema.minimum === "number" ? Math.max(lo, schema.minimum) : lo;
        const max = typeof schema.maximum === "number" ? Math.min(hi, schema.maximum) : hi;
        return fc.integer({ min, max });
      }
      case "number": {
        const min = typeof schema.minimum === "number" ? schema.minimum : -1e9;
        const max = typeof schema.maximum === "number" ? schema.maximum : 1e9;
        return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n));
      }
      case "array": {
        const items = schema.items as Schema | undefined;
        const minLength = typeof schema.minItems === "number" ? schema.minItems : 0;
        const maxLength = Math.max(
          minLength,
          typeof schema.maxItems === "number" ? Math.min(schema.maxItems, 3) : depth > maxDepth ? 0 : 3,
        );
        return fc.array(items ? of(items, depth + 1) : smallJson, { minLength, maxLength });
      }
      case "object":
        return objectOf(schema, depth);
      default:
        return smallJson;
    }
  };
  const objectOf = (schema: Schema, depth: number): fc.Arbitrary<unknown> => {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, sub] of Object.entries(properties)) {
      if (!required.has(key) && depth > maxDepth) continue;
      model[key] = of(sub, depth + 1);
    }
    const known = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
    const extra = schema.additionalProperties;
    if (extra === false) return known;
    const extraValue = typeof extra === "object" && extra !== null ? of(extra as Schema, depth + 1) : smallJson;
    const extraKeys = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }).map((k) => `zz_${k}`),
      extraValue,
      { maxKeys: depth > maxDepth ? 0 : 2 },
    );
    return fc.tuple(known, extraKeys).map(([a, b]) => ({ ...b, ...a }));
  };
  return of({ $ref: `#/$defs/${name}` }, 0);
}
