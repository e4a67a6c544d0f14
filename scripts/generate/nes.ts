/**
 * Next Edit Suggestions (`nes/*`) and document sync (`document/*`): no longer in the unstable schema, kept the way the
 * official SDK 2.4.0 keeps them (its `experimental/nes` entry), generated from the definitions of the August 2026
 * unstable schema vendored as `schema/v1/schema.unstable.2026-08.json`. Only the NES closure is emitted: the method
 * params and results plus the capability types, with everything they reference (58 defs, as in the official entry).
 */
import type { Meta, MethodSpec } from "./methods.js";
import { deriveMethods } from "./methods.js";
import { type LoadedSchema, refClosure } from "./schema.js";

export const NES_SCHEMA_FILE = "schema/v1/schema.unstable.2026-08.json";

/** The capability defs the NES entry adds to `AgentCapabilities` / `ClientCapabilities`. */
const CAPABILITY_ROOTS = ["NesCapabilities", "ClientNesCapabilities", "PositionEncodingKind"];

/** Whether a method belongs to NES or document sync. */
export function isNesMethod(method: string): boolean {
  return method.startsWith("nes/") || method.startsWith("document/");
}

/** The NES methods of the kept schema (gates checked against its capability types). */
export function nesMethods(full: LoadedSchema, meta: Meta, stableMeta: Meta, usedGates: Set<string>): MethodSpec[] {
  return deriveMethods(full, meta, stableMeta, usedGates).filter((s) => isNesMethod(s.method));
}

/** The kept schema reduced to the NES closure, in the file's def order. */
export function nesSubset(full: LoadedSchema): LoadedSchema {
  const closure = new Set<string>();
  for (const [name, def] of Object.entries(full.defs)) {
    if (isNesMethod(def["x-method"] ?? "")) refClosure(full.defs, name, closure);
  }
  for (const name of CAPABILITY_ROOTS) refClosure(full.defs, name, closure);
  const defs = Object.fromEntries(Object.entries(full.defs).filter(([name]) => closure.has(name)));
  return { ...full, defs, root: { ...full.root, $defs: defs } };
}
