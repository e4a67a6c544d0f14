/**
 * Property tests of the generated validators, with values generated from the schema's own `$defs`: every valid
 * value passes `check`, `parse` of a valid value is the identity modulo defaults (it only adds absent properties),
 * and a mutated value that fails does so with a JSON path that exists in it.
 * Bounded for CI; `ACPKIT_PROPERTY_RUNS=100000` for a long run (the count is per schema def).
 *
 * Test lane: first
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { checkProperty } from "../jsonrpc/testing/property.js";
import { schemas } from "./index.js";
import { arbitraryFor, type Defs } from "./testing/schema-arbitrary.js";
import { repoRoot } from "./testing/repo.js";
import { unstableSchemas } from "./unstable.js";
import { v2Schemas } from "./v2.js";
import { v2UnstableSchemas } from "./v2-unstable.js";

type Compiled = Record<string, { check(value: unknown): Array<{ path: string }>; parse(value: unknown): unknown }>;

/** Every schema acpkit compiles: v1 stable and unstable, protocol v2 (draft) stable and unstable. */
const SETS = [
  { label: "v1", file: "schema/v1/schema.json", compiled: schemas },
  { label: "v1 unstable", file: "schema/v1/schema.unstable.json", compiled: unstableSchemas },
  { label: "v2", file: "schema/v2/schema.json", compiled: v2Schemas },
  { label: "v2 unstable", file: "schema/v2/schema.unstable.json", compiled: v2UnstableSchemas },
] as const;
const RUNS = 25;

/** `parsed` holds every property of `original` with an equal value; it may add properties (defaults), nothing else. */
function addsOnly(original: unknown, parsed: unknown, path = "$"): string | undefined {
  if (typeof original !== "object" || original === null)
    return Object.is(original, parsed)
      ? undefined
      : `${path}: ${JSON.stringify(original)} became ${JSON.stringify(parsed)}`;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(original) !== Array.isArray(parsed))
    return `${path}: changed shape`;
  if (Array.isArray(original)) {
    if (original.length !== (parsed as unknown[]).length) return `${path}: length changed`;
    for (let i = 0; i < original.length; i++) {
      const problem = addsOnly(original[i], (parsed as unknown[])[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, value] of Object.entries(original)) {
    if (!(key in parsed)) return `${path}.${key}: removed`;
    const problem = addsOnly(value, (parsed as Record<string, unknown>)[key], `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** Splits a validator path (`$.a.b[2]["odd key"]`) into its steps. */
function stepsOf(path: string): Array<string | number> {
  assert.ok(path.startsWith("$"), `a path starts at $: ${path}`);
  const steps: Array<string | number> = [];
  const pattern = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const at = pattern.lastIndex;
    const match = pattern.exec(path);
    assert.ok(match, `unreadable path ${path} at ${at}`);
    steps.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : (JSON.parse(match[3]!) as string)));
  }
  return steps;
}

/** Whether `path` names something in `value`; the last step may be missing (a required property). */
function pathExists(value: unknown, path: string): boolean {
  const steps = stepsOf(path);
  let here = value;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (typeof here !== "object" || here === null || !(step in here))
      return i === steps.length - 1 && typeof here === "object" && here !== null;
    here = (here as Record<string | number, unknown>)[step];
  }
  return true;
}

/** Every [path, container, key] in a value. */
function locations(value: unknown): Array<{ parent: Record<string | number, unknown>; key: string | number }> {
  const out: Array<{ parent: Record<string | number, unknown>; key: string | number }> = [];
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      out.push({ parent: node as Record<string | number, unknown>, key });
      walk((node as Record<string | number, unknown>)[key]);
    }
  };
  walk(value);
  return out;
}

/** A value of a different JSON type than `value`. */
function wrongType(value: unknown, pick: number): unknown {
  const candidates: unknown[] = [12345.5, "mutated", true, null, [], { zz: 1 }];
  const other = candidates.filter(
    (c) => typeof c !== typeof value || Array.isArray(c) !== Array.isArray(value) || (c === null) !== (value === null),
  );
  return other[pick % other.length];
}

for (const set of SETS) {
  const defs = (JSON.parse(readFileSync(join(repoRoot, set.file), "utf8")) as { $defs: Defs }).$defs;
  const compiled = set.compiled as unknown as Compiled;
  const names = Object.keys(defs).filter((name) => name in compiled);

  describe(`generated validators (${set.label}), driven by the schema's $defs`, () => {
    test("every def has a generator", () => {
      assert.ok(names.length > 100, `expected the compiled defs (got ${names.length})`);
      for (const name of names) assert.ok(arbitraryFor(defs, name));
    });

    test("valid values pass check, and parse only adds defaults (and is idempotent)", () => {
      for (const name of names) {
        checkProperty(
          fc.property(arbitraryFor(defs, name), (value) => {
            const before = structuredClone(value);
            const issues = compiled[name]!.check(value);
            assert.deepEqual(issues, [], `${name}: a valid value was refused: ${JSON.stringify(issues)}`);
            const parsed = compiled[name]!.parse(value);
            const problem = addsOnly(before, parsed);
            assert.equal(problem, undefined, `${name}: parse changed the value: ${problem}`);
            // Both sides cloned: structuredClone gives a null-prototype object (which the generator makes) a plain one.
            const again = structuredClone(parsed);
            assert.deepEqual(compiled[name]!.parse(again), structuredClone(parsed), `${name}: parse is not idempotent`);
          }),
          RUNS,
        );
      }
    });

    test("a mutated value that fails, fails with paths that exist in it", () => {
      let failed = 0;
      for (const name of names) {
        checkProperty(
          fc.property(arbitraryFor(defs, name), fc.nat(), fc.nat(), fc.boolean(), (value, where, pick, remove) => {
            const spots = locations(value);
            let mutated: unknown;
            if (spots.length === 0) mutated = wrongType(value, pick);
            else {
              mutated = structuredClone(value);
              const { parent, key } = locations(mutated)[where % spots.length]!;
              if (remove && !Array.isArray(parent)) delete parent[key];
              else parent[key] = wrongType(parent[key], pick);
            }
            const issues = compiled[name]!.check(mutated);
            if (issues.length > 0) failed++;
            for (const issue of issues)
              assert.ok(
                pathExists(mutated, issue.path),
                `${name}: issue path ${issue.path} is not in ${JSON.stringify(mutated)}`,
              );
          }),
          RUNS,
        );
      }
      assert.ok(failed > names.length, `mutations were caught (${failed})`);
    });
  });
}
