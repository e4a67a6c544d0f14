/**
 * Runtime API of the compiled validators: {@link CompiledSchema} per schema def (see `schemas` in ./index.ts),
 * {@link ValidationIssue} and {@link SchemaValidationError}.
 *
 * Inbound values go through `parse`: lenient exactly where the schema says so (`x-deserialize-default-on-error`,
 * `x-deserialize-skip-invalid-items`), in place, keeping unknown fields and `_meta`, accepting unknown union tags
 * (a newer peer's new variant) and `null` where an empty result is expected. Everything we send goes through `check`,
 * which is strict and never mutates.
 */
import { CHECK, type Checker, PARSE, type RawIssue, TEST, run } from "./validator-kernel.js";

export interface ValidationIssue {
  /** JSON path of the offending value, e.g. `$.update.content.type` or `$.prompt[1].text`. */
  path: string;
  /** What the schema expects there, e.g. `string`, `integer (uint32)`, `one of "text", "image"`. */
  expected: string;
  /** Short description of what was found: `number 5`, `string "foo"`, `missing`. */
  received: string;
}

/** A value does not match its schema. Never crosses the wire by itself; callers turn it into a -32602 reply. */
export class SchemaValidationError extends Error {
  override readonly name = "SchemaValidationError";
  constructor(
    /** The schema def the value was checked against, e.g. `SessionNotification`. */
    readonly schema: string,
    /** Every issue found (at least one). */
    readonly issues: ValidationIssue[],
  ) {
    super(formatMessage(schema, issues));
  }
}

export interface CompiledSchema<T> {
  readonly name: string;
  /**
   * Inbound, lenient: validates in place, applying the schema's leniency; returns the value (same object, repaired in
   * place) or `{}` for null/undefined when the schema is an object with no required properties; throws
   * {@link SchemaValidationError} otherwise.
   */
  parse(value: unknown): T;
  /** Strict, never mutates: all issues (at most 20), `[]` when valid. */
  check(value: unknown): ValidationIssue[];
  /** Strict boolean. */
  is(value: unknown): value is T;
}

class Compiled<T> implements CompiledSchema<T> {
  /** Until the first use, a stand-in that builds the checkers (`load`) and puts the real checker in its place. */
  private checker: Checker;

  constructor(
    readonly name: string,
    load: () => Readonly<Record<string, Checker>>,
    private readonly emptyOk: boolean,
  ) {
    this.checker = (value, mode) => {
      const checker = load()[name];
      if (checker === undefined)
        throw new Error(`acpkit: no checker for the schema ${name} (a generated module is stale)`);
      this.checker = checker;
      return checker(value, mode);
    };
  }

  parse(value: unknown): T {
    if (value == null && this.emptyOk) value = {};
    const issues = run(this.checker, value, PARSE);
    if (issues) throw new SchemaValidationError(this.name, issues.map(toIssue));
    return value as T;
  }

  check(value: unknown): ValidationIssue[] {
    const issues = run(this.checker, value, CHECK);
    return issues ? issues.map(toIssue) : [];
  }

  is(value: unknown): value is T {
    return run(this.checker, value, TEST) === null;
  }
}

/**
 * Used by the generated modules: one {@link CompiledSchema} per name, whose checker comes from `load()`, called on the
 * first validation with any of them (issue 20, cold start: the checkers are not made at import).
 */
export function compileSchemas(
  names: readonly string[],
  emptyOk: ReadonlySet<string>,
  load: () => Readonly<Record<string, Checker>>,
): Record<string, CompiledSchema<unknown>> {
  const out: Record<string, CompiledSchema<unknown>> = {};
  for (const name of names) out[name] = new Compiled(name, load, emptyOk.has(name));
  return Object.freeze(out);
}

/** The generated guard tests by key, each calling the test `load()` gives it (`load` is called on the first use). */
export function lazyTests(
  keys: readonly string[],
  load: () => Readonly<Record<string, (value: unknown) => boolean>>,
): Readonly<Record<string, (value: unknown) => boolean>> {
  const out: Record<string, (value: unknown) => boolean> = {};
  for (const key of keys) {
    let test: ((value: unknown) => boolean) | undefined;
    out[key] = (value) => (test ??= load()[key]!)(value);
  }
  return Object.freeze(out);
}

function toIssue(raw: RawIssue): ValidationIssue {
  return { path: formatPath(raw.p), expected: raw.e, received: describeValue(raw.r) };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `["text", "content", "update"]` (innermost first) -> `$.update.content.text`. */
export function formatPath(reversed: ReadonlyArray<string | number>): string {
  let path = "$";
  for (let i = reversed.length - 1; i >= 0; i--) {
    const seg = reversed[i]!;
    if (typeof seg === "number") path += `[${seg}]`;
    else path += IDENTIFIER.test(seg) ? `.${seg}` : `[${JSON.stringify(seg)}]`;
  }
  return path;
}

/** A short description of a value for error messages: `number 5`, `string "foo"`, `missing`, `array (length 3)`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `array (length ${value.length})`;
  switch (typeof value) {
    case "string": {
      const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
      return `string ${JSON.stringify(shown)}`;
    }
    case "number":
    case "boolean":
    case "bigint":
      return `${typeof value} ${String(value)}`;
    case "object":
      return "object";
    default:
      return typeof value;
  }
}

function formatMessage(schema: string, issues: ValidationIssue[]): string {
  const first = issues[0];
  if (!first) return `Invalid ${schema}`;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : "";
  return `Invalid ${schema} at ${first.path}: expected ${first.expected}, received ${first.received}${more}`;
}
