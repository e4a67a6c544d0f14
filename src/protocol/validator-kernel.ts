/**
 * The small runtime the generated validators (`generated/validators*.ts`) call into. Not public API.
 *
 * Every generated checker has the signature `(value, mode) => boolean`. On success it touches nothing here: no
 * allocation, no path string. On failure it pushes an {@link RawIssue} onto {@link E} with an empty path, and each
 * caller, while unwinding, appends its own path segment (property name or array index). `F` is the index of the first
 * issue of the most recent failed call, so a caller knows which issues belong to the child that just failed.
 *
 * Modes:
 *  - {@link PARSE} (0): lenient, repairs in place (defaults for `x-deserialize-default-on-error`, drops items under
 *    `x-deserialize-skip-invalid-items`, fills schema defaults for missing properties), accepts unknown union tags;
 *    stops at the first issue that cannot be repaired.
 *  - {@link LENIENT} (1): the same verdict as PARSE but mutates nothing; used to pick a union variant before parsing.
 *  - {@link CHECK} (2): strict, mutates nothing, collects up to {@link MAX_ISSUES} issues.
 *  - {@link TEST} (3): strict, mutates nothing, stops at the first issue.
 * Validators are synchronous and never re-entered, so one module-level stack is enough.
 */

export const PARSE = 0;
export const LENIENT = 1;
export const CHECK = 2;
export const TEST = 3;
export const MAX_ISSUES = 20;

/** An issue as the generated code records it: path segments innermost first, the raw received value. */
export interface RawIssue {
  /** Path segments from the failing value outwards (reversed while unwinding; read back to front). */
  p: Array<string | number>;
  /** What was expected, e.g. "string", "integer (uint32)", 'one of "a", "b"'. */
  e: string;
  /** The value found (`undefined` when the property is missing). */
  r: unknown;
}

/** A generated checker. */
export type Checker = (value: any, mode: number) => boolean;

/** The issue stack. */
export const E: RawIssue[] = [];
/** Index in {@link E} of the first issue of the most recent failed call. */
export let F = 0;

/** Leaf failure at the current value: records the issue and returns false. */
export function I(expected: string, received: unknown): false {
  F = E.length;
  E.push({ p: [], e: expected, r: received });
  return false;
}

/** Leaf failure at child `key` of the current value (a missing property, a bad tag). */
export function K(expected: string, received: unknown, key: string | number): false {
  F = E.length;
  E.push({ p: [key], e: expected, r: received });
  return false;
}

/**
 * A child at `key` failed: prefixes `key` to that child's issues. Returns true when the caller must stop (every mode
 * but CHECK, or the issue cap was reached), having pointed `F` at the caller's own first issue (`start`).
 */
export function X(mode: number, start: number, key: string | number): boolean {
  for (let i = F; i < E.length; i++) E[i]!.p.push(key);
  if (mode !== CHECK || E.length >= MAX_ISSUES) {
    F = start;
    return true;
  }
  return false;
}

/** Like {@link X} for a failure at the current value itself (an `allOf` member, a union, a count). */
export function Y(mode: number, start: number): boolean {
  if (mode !== CHECK || E.length >= MAX_ISSUES) {
    F = start;
    return true;
  }
  return false;
}

/** End of a checker: true when nothing was recorded since `start`. */
export function Z(start: number): boolean {
  if (E.length === start) return true;
  F = start;
  return false;
}

/** A required property is missing: records it at `key`; true when the caller must stop (see {@link X}). */
export function M(mode: number, start: number, expected: string, key: string): boolean {
  F = E.length;
  E.push({ p: [key], e: expected, r: undefined });
  return Y(mode, start);
}

/**
 * A property under `x-deserialize-default-on-error` failed. Lenient modes discard its issues and return false (the
 * caller then repairs it in PARSE mode); strict modes treat it like {@link X}.
 */
export function R(mode: number, start: number, key: string): boolean {
  if (mode === PARSE || mode === LENIENT) {
    E.length = F;
    return false;
  }
  return X(mode, start, key);
}

/** A plain JSON object (not null, not an array). */
export function O(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Discards the issues of a failure that leniency has just repaired or skipped. */
export function D(): void {
  E.length = F;
}

/**
 * Untagged union (JSON Schema `anyOf` semantics). Strict modes: the first variant that passes strictly. Lenient modes:
 * the first variant that passes leniently wins and is the only one parsed (mutated), as the official SDK's zod unions
 * and serde's untagged enums read: a known variant that needs a repair (`args: null` on a terminal auth method) is
 * read as that variant, not as a later open variant that happens to accept it unrepaired.
 * On failure, reports the variant that got furthest (deepest first issue, then fewest missing properties, then fewest
 * issues, then first listed), or one issue naming every alternative (`expected`) when none got past the value itself.
 */
export function U(value: unknown, mode: number, variants: readonly Checker[], expected: string): boolean {
  const start = E.length;
  if (mode !== PARSE && mode !== LENIENT) {
    for (let i = 0; i < variants.length; i++) {
      if (variants[i]!(value, TEST)) return true;
      E.length = start;
    }
  } else {
    for (let i = 0; i < variants.length; i++) {
      if (variants[i]!(value, LENIENT)) return mode === LENIENT || variants[i]!(value, PARSE);
      E.length = start;
    }
  }
  const report = mode === PARSE ? LENIENT : mode;
  let best = 0;
  let bestDepth = -1;
  let bestMissing = 0;
  let bestCount = 0;
  for (let i = 0; i < variants.length; i++) {
    variants[i]!(value, report);
    const count = E.length - start;
    const depth = count > 0 ? E[start]!.p.length : 0;
    let missing = 0;
    for (let j = start; j < E.length; j++) if (E[j]!.r === undefined) missing++;
    const better =
      depth > bestDepth ||
      (depth === bestDepth && (missing < bestMissing || (missing === bestMissing && count < bestCount)));
    if (better) {
      best = i;
      bestDepth = depth;
      bestMissing = missing;
      bestCount = count;
    }
    E.length = start;
  }
  if (bestDepth <= 0) return I(expected, value);
  variants[best]!(value, report);
  if (E.length === start) I(expected, value);
  F = start;
  return false;
}

/** Strict test of a sub-checker that leaves no issues behind (`not`, guards). */
export function T(check: Checker, value: unknown): boolean {
  const start = E.length;
  if (check(value, TEST)) return true;
  E.length = start;
  return false;
}

/** Length in Unicode code points, as JSON Schema's minLength/maxLength count. */
export function L(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Runs a checker from the top: null on success, else the recorded issues (the stack is left empty). Setting an
 * array's length costs more than a whole small validation in V8, so the success path never does it.
 */
export function run(check: Checker, value: unknown, mode: number): RawIssue[] | null {
  if (E.length !== 0) E.length = 0;
  F = 0;
  if (check(value, mode)) return null;
  const out = E.slice(0, MAX_ISSUES);
  E.length = 0;
  if (out.length === 0) out.push({ p: [], e: "a valid value", r: value });
  return out;
}
