/**
 * What the NES entry (`@acpkit/sdk/experimental/nes`) adds on top of `./nes.ts` for code written against the official
 * one: `validate` (`z<Name>` zod-shaped validators of every NES definition), the zod-shaped `initialize` and
 * capability validators, and its `AGENT_METHODS`. Apart from `./nes.ts`, which the protocol flavors need, so that
 * only programs importing the NES entry build them (the root entry's import does not).
 */
import { AGENT_METHODS as NES_ONLY_AGENT_METHODS } from "./generated/methods.nes.js";
import { nesSchemas } from "./generated/validators.nes.js";
import {
  nesAgentCapabilitiesSchema,
  nesClientCapabilitiesSchema,
  nesInitializeRequestSchema,
  nesInitializeResponseSchema,
} from "./nes.js";
import { AGENT_METHODS as UNSTABLE_AGENT_METHODS } from "./unstable.js";
import type { CompiledSchema } from "./validation.js";
import { SchemaValidationError } from "./validation.js";

/** The `validate` object of the NES entry: `z<Name>` for every NES definition, as the official entry names them. */
export type NesValidate = { readonly [K in keyof NesSchemasOf as `z${K & string}`]: ZodLikeSchema<NesSchemasOf[K]> };
type NesSchemasOf = {
  [K in keyof typeof nesSchemas]: (typeof nesSchemas)[K] extends CompiledSchema<infer T> ? T : never;
};

/** `validate.zStartNesRequest.parse(value)`, `.safeParse(value)`: the NES definitions' compiled validators. */
export const validate: NesValidate = Object.freeze(
  Object.fromEntries(
    Object.entries(nesSchemas).map(([name, schema]) => [`z${name}`, zodLike(schema as CompiledSchema<unknown>)]),
  ),
) as NesValidate;

/** A compiled schema with zod's `parse` / `safeParse` call shapes, for code written against the official `validate`. */
export interface ZodLikeSchema<T> extends CompiledSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: SchemaValidationError };
}

/** Wraps a compiled schema with `safeParse`. `parse` keeps its contract (lenient, in place). */
export function zodLike<T>(schema: CompiledSchema<T>): ZodLikeSchema<T> {
  return {
    name: schema.name,
    parse: (value) => schema.parse(value),
    check: (value) => schema.check(value),
    is: (value): value is T => schema.is(value),
    safeParse(value) {
      try {
        return { success: true, data: schema.parse(value) };
      } catch (error) {
        if (error instanceof SchemaValidationError) return { success: false, error };
        throw error;
      }
    },
  };
}

/** `AGENT_METHODS` of the NES entry: the unstable agent methods plus `nes/*` and `document/*`. */
export const NES_ENTRY_AGENT_METHODS = Object.freeze({ ...UNSTABLE_AGENT_METHODS, ...NES_ONLY_AGENT_METHODS });

/**
 * `ClientCapabilities` with NES fields, zod-shaped (`parse`, `safeParse`), as the official entry's
 * `zClientCapabilities`.
 */
export const zClientCapabilities = zodLike(nesClientCapabilitiesSchema);
/** `AgentCapabilities` with NES fields, zod-shaped. */
export const zAgentCapabilities = zodLike(nesAgentCapabilitiesSchema);
/** `initialize` params with NES capabilities, zod-shaped. */
export const zInitializeRequest = zodLike(nesInitializeRequestSchema);
/** `initialize` result with NES capabilities, zod-shaped. */
export const zInitializeResponse = zodLike(nesInitializeResponseSchema);
