/**
 * A JSON-safe copy of a value `JSON.stringify` cannot write as is, for `--trace`: cycles, BigInts, nesting too
 * deep for the stack, functions and symbols become visible markers instead of an exception, so the message is
 * still recorded.
 */

/** Deeper than this, a value is cut with a marker (JSON.stringify overflows the stack near a few thousand levels). */
export const TRACE_MAX_DEPTH = 64;

/** Markers put in place of what could not be written. */
export const MARK = {
  circular: "[acpkit trace: circular reference]",
  deep: `[acpkit trace: nested deeper than ${TRACE_MAX_DEPTH} levels, cut]`,
  bigint: (value: bigint) => `[acpkit trace: BigInt ${value.toString()}]`,
  other: (type: string) => `[acpkit trace: ${type}]`,
  failed: (reason: string) => `[acpkit trace: could not be read: ${reason}]`,
} as const;

/** The JSON-safe copy of `value` (see the file comment). Never throws. */
export function traceableCopy(value: unknown): unknown {
  return copy(value, 0, new Set());
}

function copy(value: unknown, depth: number, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : MARK.other(String(value));
    case "bigint":
      return MARK.bigint(value);
    case "undefined":
      return undefined;
    case "function":
    case "symbol":
      return MARK.other(typeof value);
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return MARK.circular;
  if (depth >= TRACE_MAX_DEPTH) return MARK.deep;
  ancestors.add(object);
  try {
    const json = (object as { toJSON?: unknown }).toJSON;
    if (typeof json === "function") return copy(json.call(object), depth + 1, ancestors);
    if (Array.isArray(object)) return object.map((item) => copy(item, depth + 1, ancestors) ?? null);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(object)) {
      const item = copy((object as Record<string, unknown>)[key], depth + 1, ancestors);
      if (item !== undefined) out[key] = item;
    }
    return out;
  } catch (error) {
    return MARK.failed(error instanceof Error ? error.message : String(error));
  } finally {
    ancestors.delete(object);
  }
}
