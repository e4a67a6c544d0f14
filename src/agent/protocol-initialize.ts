/**
 * How an `AgentProtocolRouter` normalizes the first `initialize` for the implementation it selected (as the official
 * router does): the params are parsed under the selected version's schema (defaults filled in) and written
 * canonically (absent and null members and empty arrays left out, `_meta` kept as it is):
 * - exactly the selected version: parsed strictly; params that do not parse are refused;
 * - a newer version for v2: read leniently (what does not parse under v2 is dropped, a missing or malformed `info`
 *   becomes `{ name: "unknown", version: "unknown" }`), `protocolVersion` lowered to 2;
 * - v2 (or newer) for v1: recast in v1's shape: `clientInfo` from `info` (left out when it was not valid),
 *   `clientCapabilities` from `capabilities`: v2 clients have no file system or terminals, and read plan updates
 *   and boolean config options; elicitation, terminal auth and `_meta` carry over.
 */
import { isRecord } from "../jsonrpc/index.js";
import { parseNewerInitialize } from "../acp/v2/admission.js";
import { schemas as v1Schemas } from "../protocol/unstable.js";
import { v2UnstableSchemas } from "../protocol/v2-unstable.js";

/**
 * The initialize params to hand the implementation of version `selected`, for a request of version `requested`.
 * Throws (a `SchemaValidationError`) when params of exactly version 2 do not parse.
 */
export function rewriteInitializeParams(
  params: Record<string, unknown>,
  requested: number,
  selected: 1 | 2,
): Record<string, unknown> {
  if (selected === 1) {
    if (requested < 2)
      return canonical({
        ...(v1Schemas.InitializeRequest.parse(structuredClone(params)) as Record<string, unknown>),
        protocolVersion: 1,
      });
    return canonical(v2InitializeToV1(parseNewerV2(params)));
  }
  const parsed =
    requested > 2
      ? parseNewerV2(params).request
      : (v2UnstableSchemas.InitializeRequest.parse(structuredClone(params)) as Record<string, unknown>);
  return canonical({ ...parsed, protocolVersion: 2 });
}

function parseNewerV2(params: Record<string, unknown>): { request: Record<string, unknown>; hasInfo: boolean } {
  return parseNewerInitialize(params, v2UnstableSchemas.InitializeRequest, v2UnstableSchemas.Implementation);
}

function v2InitializeToV1({
  request,
  hasInfo,
}: {
  request: Record<string, unknown>;
  hasInfo: boolean;
}): Record<string, unknown> {
  const capabilities = isRecord(request.capabilities) ? request.capabilities : {};
  const auth = isRecord(capabilities.auth) ? capabilities.auth : undefined;
  const clientCapabilities: Record<string, unknown> = {
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
    session: { configOptions: { boolean: {} } },
    plan: {},
    auth: {
      terminal: auth?.terminal !== undefined && auth.terminal !== null,
      ...(isRecord(auth?._meta) ? { _meta: auth._meta } : {}),
    },
  };
  if (capabilities.elicitation !== undefined && capabilities.elicitation !== null)
    clientCapabilities.elicitation = capabilities.elicitation;
  if (isRecord(capabilities._meta)) clientCapabilities._meta = capabilities._meta;
  const v1: Record<string, unknown> = { protocolVersion: 1, clientCapabilities };
  if (hasInfo) v1.clientInfo = request.info;
  if (isRecord(request._meta)) v1._meta = request._meta;
  return v1;
}

/** serde's canonical output for these schemas: no absent or null members, no empty arrays; `_meta` as it is. */
function canonical(value: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || member === null) continue;
    if (key === "_meta") result[key] = member;
    else if (Array.isArray(member)) {
      if (member.length > 0) result[key] = member.map(canonicalValue);
    } else result[key] = canonicalValue(member);
  }
  return result;
}

function canonicalValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalValue);
  return isRecord(value) ? canonical(value) : value;
}
