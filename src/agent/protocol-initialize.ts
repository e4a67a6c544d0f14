/**
 * How an `AgentProtocolRouter` rewrites the first `initialize` for the implementation it selected:
 * - exactly the selected version: forwarded unchanged;
 * - a newer version for v2: `protocolVersion` lowered to 2, a missing or malformed `info` replaced by
 *   `{ name: "unknown", version: "unknown" }` (the v2 agent reads the rest leniently);
 * - v2 (or newer) for v1: recast in v1's shape: `clientInfo` from `info`, `clientCapabilities` from `capabilities`
 *   (v2 clients have no file system or terminals; elicitation, terminal auth and `_meta` carry over).
 */
import { isRecord } from "../jsonrpc/index.js";

const UNKNOWN_IMPLEMENTATION = { name: "unknown", version: "unknown" };

function isImplementation(value: unknown): boolean {
  return isRecord(value) && typeof value.name === "string" && typeof value.version === "string";
}

/** The initialize params to hand the implementation of version `selected`, for a request of version `requested`. */
export function rewriteInitializeParams(params: Record<string, unknown>, requested: number, selected: 1 | 2): Record<string, unknown> {
  if (requested === selected) return params;
  if (selected === 2) return { ...params, protocolVersion: 2, info: isImplementation(params.info) ? params.info : UNKNOWN_IMPLEMENTATION };
  if (requested < 2) return { ...params, protocolVersion: 1 };
  return v2InitializeToV1(params);
}

function v2InitializeToV1(params: Record<string, unknown>): Record<string, unknown> {
  const capabilities = isRecord(params.capabilities) ? params.capabilities : {};
  const auth = isRecord(capabilities.auth) ? capabilities.auth : undefined;
  const clientCapabilities: Record<string, unknown> = {
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
    auth: { terminal: auth?.terminal !== undefined && auth.terminal !== null, ...(isRecord(auth?._meta) ? { _meta: auth._meta } : {}) },
  };
  if (capabilities.elicitation !== undefined && capabilities.elicitation !== null) clientCapabilities.elicitation = capabilities.elicitation;
  if (isRecord(capabilities._meta)) clientCapabilities._meta = capabilities._meta;
  const v1: Record<string, unknown> = { protocolVersion: 1, clientCapabilities };
  if (isImplementation(params.info)) v1.clientInfo = params.info;
  if (isRecord(params._meta)) v1._meta = params._meta;
  return v1;
}
