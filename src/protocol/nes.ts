/**
 * Next Edit Suggestions (`nes/*`) and document sync (`document/*`) as data: no longer in the unstable schema, kept
 * the way the official SDK 2.4.0 keeps them (`@agentclientprotocol/sdk/experimental/nes`), generated from the
 * August 2026 unstable schema's definitions (`schema/v1/schema.unstable.2026-08.json`). Adds the NES types, their
 * compiled validators and method table, and the capability fields NES adds to `initialize` (`nes`,
 * `positionEncodings` on the client; `nes`, `positionEncoding` on the agent).
 *
 * Unstable: may change or go away in any release. Advertise and check `nes` capabilities before use.
 */
import type * as nes from "./generated/types.nes.js";
import { nesSchemas } from "./generated/validators.nes.js";
import type * as unstable from "./unstable.js";
import { unstableSchemas } from "./unstable.js";
import type { CompiledSchema, ValidationIssue } from "./validation.js";

export type * from "./generated/types.nes.js";
export { nesSchemas, type NesSchemas } from "./generated/validators.nes.js";
export {
  METHOD_TABLE as NES_METHOD_TABLE,
  AGENT_METHODS as NES_AGENT_METHODS,
  type AgentRequestMap as NesAgentRequestMap,
  type AgentNotificationMap as NesAgentNotificationMap,
} from "./generated/methods.nes.js";

/** `ClientCapabilities` with NES: what the client supports and which position encodings it offers. */
export type ClientCapabilities = unstable.ClientCapabilities & {
  nes?: nes.ClientNesCapabilities | null;
  positionEncodings?: nes.PositionEncodingKind[];
};

/** `AgentCapabilities` with NES: the agent's NES support and the position encoding it chose. */
export type AgentCapabilities = unstable.AgentCapabilities & {
  nes?: nes.NesCapabilities | null;
  positionEncoding?: nes.PositionEncodingKind | null;
};

/** `initialize` params with the NES client capabilities. */
export type InitializeRequest = Omit<unstable.InitializeRequest, "clientCapabilities"> & {
  clientCapabilities?: ClientCapabilities;
};

/** `initialize` result with the NES agent capabilities. */
export type InitializeResponse = Omit<unstable.InitializeResponse, "agentCapabilities"> & {
  agentCapabilities?: AgentCapabilities;
};

type Fields = Record<string, unknown>;

/** A retired capability field: how to check it and what leniency makes of a bad value (serde's `DefaultOnError`). */
interface RetiredField {
  readonly name: string;
  check(value: unknown): ValidationIssue[];
  /** Repairs in place (parse): returns the value to keep, or undefined to drop the field. */
  repair(value: unknown): unknown;
}

const nullable =
  (schema: CompiledSchema<unknown>): RetiredField["check"] =>
  (value) =>
    value === null ? [] : schema.check(value);

function optionalObject(name: string, schema: CompiledSchema<unknown>): RetiredField {
  return {
    name,
    check: nullable(schema),
    repair: (value) => {
      if (value === null) return null;
      try {
        return schema.parse(value);
      } catch {
        return undefined;
      }
    },
  };
}

const encodingList: RetiredField = {
  name: "positionEncodings",
  check: (value) =>
    Array.isArray(value)
      ? value.flatMap((item, i) =>
          nesSchemas.PositionEncodingKind.check(item).map((issue) => ({
            ...issue,
            path: `$[${i}]${issue.path.slice(1)}`,
          })),
        )
      : [{ path: "$", expected: "array", received: typeof value }],
  // An array keeps its valid items (skip-invalid-items); anything else becomes [].
  repair: (value) => (Array.isArray(value) ? value.filter((item) => nesSchemas.PositionEncodingKind.is(item)) : []),
};

const CLIENT_FIELDS: readonly RetiredField[] = [optionalObject("nes", nesSchemas.ClientNesCapabilities), encodingList];
const AGENT_FIELDS: readonly RetiredField[] = [
  optionalObject("nes", nesSchemas.NesCapabilities),
  optionalObject("positionEncoding", nesSchemas.PositionEncodingKind),
];

/**
 * `base` plus the retired NES capability fields, on the value itself (`key` undefined: a capabilities schema) or
 * under `key` (an initialize schema): parse repairs them leniently as the official entry does (a bad value is dropped
 * or emptied), check and is judge them strictly.
 */
function withRetiredFields<T>(
  base: CompiledSchema<unknown>,
  key: string | undefined,
  fields: readonly RetiredField[],
): CompiledSchema<T> {
  const at = (value: unknown): unknown => (key === undefined ? value : (value as Fields | null)?.[key]);
  const prefix = key === undefined ? "$" : `$.${key}`;
  const extraIssues = (value: unknown): ValidationIssue[] => {
    const capabilities = at(value);
    if (capabilities === null || typeof capabilities !== "object") return [];
    return fields.flatMap((field) => {
      const fieldValue = (capabilities as Fields)[field.name];
      if (fieldValue === undefined) return [];
      return field
        .check(fieldValue)
        .map((issue) => ({ ...issue, path: `${prefix}.${field.name}${issue.path.slice(1)}` }));
    });
  };
  return {
    name: base.name,
    parse(value: unknown): T {
      const parsed = base.parse(value) as Fields;
      const capabilities = at(parsed);
      if (capabilities !== null && typeof capabilities === "object") {
        for (const field of fields) {
          const fieldValue = (capabilities as Fields)[field.name];
          if (fieldValue === undefined) continue;
          const repaired = field.repair(fieldValue);
          if (repaired === undefined) delete (capabilities as Fields)[field.name];
          else (capabilities as Fields)[field.name] = repaired;
        }
      }
      return parsed as T;
    },
    check(value: unknown): ValidationIssue[] {
      return [...base.check(value), ...extraIssues(value)];
    },
    is(value: unknown): value is T {
      return base.is(value) && extraIssues(value).length === 0;
    },
  };
}

/** `ClientCapabilities` with the NES fields. */
export const nesClientCapabilitiesSchema = withRetiredFields<ClientCapabilities>(
  unstableSchemas.ClientCapabilities,
  undefined,
  CLIENT_FIELDS,
);
/** `AgentCapabilities` with the NES fields. */
export const nesAgentCapabilitiesSchema = withRetiredFields<AgentCapabilities>(
  unstableSchemas.AgentCapabilities,
  undefined,
  AGENT_FIELDS,
);
/** `initialize` params with the NES client capabilities. */
export const nesInitializeRequestSchema = withRetiredFields<InitializeRequest>(
  unstableSchemas.InitializeRequest,
  "clientCapabilities",
  CLIENT_FIELDS,
);
/** `initialize` result with the NES agent capabilities. */
export const nesInitializeResponseSchema = withRetiredFields<InitializeResponse>(
  unstableSchemas.InitializeResponse,
  "agentCapabilities",
  AGENT_FIELDS,
);

/** The unstable schemas, the NES ones, and initialize extended with the NES capability fields. */
export const nesFlavorSchemas: Readonly<Record<string, CompiledSchema<unknown>>> = Object.freeze({
  ...(unstableSchemas as unknown as Record<string, CompiledSchema<unknown>>),
  ...(nesSchemas as unknown as Record<string, CompiledSchema<unknown>>),
  SessionId: unstableSchemas.SessionId as CompiledSchema<unknown>,
  InitializeRequest: nesInitializeRequestSchema as CompiledSchema<unknown>,
  InitializeResponse: nesInitializeResponseSchema as CompiledSchema<unknown>,
});
