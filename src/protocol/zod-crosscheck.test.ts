/**
 * The generated validators against the official SDK's zod schemas (see below).
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type CompiledSchema, schemas } from "./index.js";
import { unstableSchemas } from "./unstable.js";
import { v2Schemas } from "./v2.js";
import { v2UnstableSchemas } from "./v2-unstable.js";
import { type JsonSchemaDoc, readJson, repoRoot, stableSchema, unstableSchema } from "./testing/repo.js";
import { applyBreak, samplesFor } from "./testing/samples.js";

// Cross-check against the official SDK's zod schemas, for every def whose schema (and everything it references) is the
// same in our vendored schema and in the one the SDK was generated from. zod parsing is lenient like our `parse`, so:
// strict breaks must be rejected by zod, check and parse alike; lenient breaks must be accepted by zod and parse (with
// the same repaired value) and reported by check; unknown tags are rejected by zod and check, accepted by parse.
// Samples use URL-shaped strings for `format: uri`: zod checks the URL's form, which we deliberately do not.
const sdkDir = "node_modules/@agentclientprotocol/sdk";
const loadZod = async (path: string) =>
  (await import(pathToFileURL(join(repoRoot, sdkDir, path)).href)) as Record<string, any>;
const flavours = [
  {
    name: "stable",
    ours: stableSchema(),
    theirs: readJson<JsonSchemaDoc>(`${sdkDir}/schema/v1/schema.json`),
    zod: await loadZod("dist/v1/schema/zod.gen.js"),
    schemas: schemas as unknown as Record<string, CompiledSchema<unknown>>,
  },
  {
    name: "unstable",
    ours: unstableSchema(),
    theirs: readJson<JsonSchemaDoc>(`${sdkDir}/schema/v1/schema.unstable.json`),
    zod: await loadZod("dist/v1/unstable/schema/zod.gen.js"),
    schemas: unstableSchemas as unknown as Record<string, CompiledSchema<unknown>>,
  },
  {
    name: "v2",
    ours: readJson<JsonSchemaDoc>("schema/v2/schema.json"),
    theirs: readJson<JsonSchemaDoc>(`${sdkDir}/schema/v2/schema.json`),
    zod: await loadZod("dist/v2/schema/zod.gen.js"),
    schemas: v2Schemas as unknown as Record<string, CompiledSchema<unknown>>,
  },
  {
    name: "v2 unstable",
    ours: readJson<JsonSchemaDoc>("schema/v2/schema.unstable.json"),
    theirs: readJson<JsonSchemaDoc>(`${sdkDir}/schema/v2/schema.unstable.json`),
    zod: await loadZod("dist/v2/unstable/schema/zod.gen.js"),
    schemas: v2UnstableSchemas as unknown as Record<string, CompiledSchema<unknown>>,
  },
];

const strip = (n: unknown): unknown => {
  if (Array.isArray(n)) return n.map(strip);
  if (!n || typeof n !== "object") return n;
  return Object.fromEntries(
    Object.entries(n)
      .filter(([k]) => k !== "description" && k !== "title")
      .map(([k, v]) => [k, strip(v)]),
  );
};

function closure(doc: JsonSchemaDoc, name: string, into = new Set<string>()): Set<string> {
  if (into.has(name)) return into;
  into.add(name);
  for (const m of JSON.stringify(doc.$defs[name] ?? {}).matchAll(/#\/\$defs\/(\w+)/g)) closure(doc, m[1]!, into);
  return into;
}

// The JSON-RPC envelope defs (x-docs-ignore) are left out: their `result`/`params` are untagged unions whose first
// permissive variant wins, and zod strips what that variant does not know, so parsed values are not comparable.
function eligibleDefs(ours: JsonSchemaDoc, theirs: JsonSchemaDoc, zod: Record<string, unknown>): string[] {
  const same = (name: string) => JSON.stringify(strip(ours.$defs[name])) === JSON.stringify(strip(theirs.$defs[name]));
  return Object.keys(ours.$defs).filter(
    (name) => zod[`z${name}`] && !ours.$defs[name]["x-docs-ignore"] && [...closure(ours, name)].every(same),
  );
}

/** Key-order-insensitive JSON, dropping undefined like JSON.stringify does. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/**
 * Breaks that land a value in an untagged fallback variant. `AuthMethod` is `terminal` (tagged) or an untagged `agent`
 * fallback, `IdleStateUpdate` has an untagged `none` variant: a broken known variant is still a valid fallback (JSON
 * Schema `anyOf`, open objects), which we keep whole (unknown fields pass through) and zod strips down to the
 * fallback's keys. Only these cases are excused, and only when zod's value is ours minus some keys.
 */
const UNTAGGED_FALLBACK = /^(authMethods\.|stopReason\b)/;

/**
 * v2's `ErrorData` is an untagged `anyOf` of two known shapes and a catch-all `Other`: a known shape with a broken
 * `_meta` is still a valid `Other`, which we keep whole, where zod (like serde) takes the first shape that parses
 * leniently and drops the broken `_meta`. Excused only when zod's value is ours minus some keys.
 */
const ERROR_DATA_CATCH_ALL = /(^|\.)data\._meta$|^_meta$/;

/**
 * v2's `stopReason` is at once the tag of `IdleStateUpdate`'s variants and a default-on-error field: a malformed one
 * reads as "no stop reason" (parse and zod accept, check reports it), which the sample generator files as a strict
 * break of a tag.
 */
const LENIENT_TAG = /(^|\.)stopReason :=/;

/** Whether `small` is `big` with some object keys left out. */
function deepSubset(small: unknown, big: unknown): boolean {
  if (Array.isArray(small))
    return Array.isArray(big) && small.length === big.length && small.every((v, i) => deepSubset(v, big[i]));
  if (small && typeof small === "object") {
    if (!big || typeof big !== "object" || Array.isArray(big)) return false;
    // zod leaves a dropped field as an own key holding undefined (JSON has no such key).
    return Object.entries(small).every(
      ([k, v]) => v === undefined || deepSubset(v, (big as Record<string, unknown>)[k]),
    );
  }
  return Object.is(small, big);
}

function ourParse(schema: CompiledSchema<unknown>, value: unknown): { ok: boolean; out?: unknown } {
  try {
    return { ok: true, out: schema.parse(structuredClone(value)) };
  } catch {
    return { ok: false };
  }
}

for (const f of flavours) {
  const eligible = eligibleDefs(f.ours, f.theirs, f.zod);

  test(`${f.name}: enough defs are shared with the SDK's schema to make the cross-check meaningful`, () => {
    assert.ok(eligible.length >= 100, `only ${eligible.length} shared defs`);
    for (const core of [
      "ContentBlock",
      "ToolCallContent",
      "PromptRequest",
      "RequestPermissionResponse",
      "SessionConfigOption",
    ]) {
      assert.ok(eligible.includes(core), core);
    }
  });

  test(
    `${f.name}: check, parse and the official zod schemas agree ` + `on valid samples and on every broken variant`,
    () => {
      const disagreements = compare(f.ours, f.schemas, f.zod, eligible);
      assert.deepEqual(disagreements.slice(0, 30), [], `${disagreements.length} disagreements`);
    },
  );
}

function compare(
  ours: JsonSchemaDoc,
  compiled: Record<string, CompiledSchema<unknown>>,
  zod: Record<string, any>,
  eligible: string[],
): string[] {
  const disagreements: string[] = [];
  let compared = 0;
  for (const name of eligible) {
    const schema = compiled[name]!;
    const z = zod[`z${name}`];
    for (const sample of samplesFor(ours, name, 12)) {
      const cases = [
        { value: sample.value, category: "valid", inLenient: false, where: "sample" },
        ...sample.points.map((p) => ({
          value: applyBreak(sample.value, p),
          category: p.category,
          inLenient: p.inLenient,
          where: `${p.path.join(".") || "$"} := ${p.value === undefined ? "(deleted)" : JSON.stringify(p.value)}`,
        })),
      ];
      for (const c of cases) {
        compared++;
        const zr = z.safeParse(structuredClone(c.value));
        const checkOk = schema.check(c.value).length === 0;
        const parsed = ourParse(schema, c.value);
        const say = (what: string) => disagreements.push(`${name} [${c.category}] ${c.where}: ${what}`);
        if (c.category === "valid" && !(checkOk && parsed.ok && zr.success))
          say(`check ${checkOk}, parse ${parsed.ok}, zod ${zr.success}`);
        const lenientTag = LENIENT_TAG.test(c.where) && !checkOk && parsed.ok && zr.success;
        if (c.category === "strict" && !(checkOk === zr.success && parsed.ok === zr.success) && !lenientTag) {
          say(`check ${checkOk}, parse ${parsed.ok}, zod ${zr.success}`);
        }
        if (c.category === "lenient" && parsed.ok !== zr.success) say(`parse ${parsed.ok}, zod ${zr.success}`);
        // An unknown tag: we keep the value (forward compatibility) where zod rejects it, or drops it under leniency.
        if (c.category === "tag" && !(checkOk === false && parsed.ok && (zr.success === false || c.inLenient))) {
          say(`check ${checkOk}, parse ${parsed.ok}, zod ${zr.success}`);
        }
        if (
          (c.category === "valid" || c.category === "lenient") &&
          parsed.ok &&
          zr.success &&
          canonical(parsed.out) !== canonical(zr.data) &&
          !(
            (UNTAGGED_FALLBACK.test(c.where) ||
              (ERROR_DATA_CATCH_ALL.test(c.where.split(" := ")[0]!) && /Error/.test(name))) &&
            deepSubset(zr.data, parsed.out)
          )
        ) {
          say(`parsed values differ:\n    ours ${canonical(parsed.out)}\n    zod  ${canonical(zr.data)}`);
        }
      }
    }
  }
  assert.ok(compared > 1000, `compared only ${compared} values`);
  return disagreements;
}
