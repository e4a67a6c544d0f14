import { isJsonRpcId, type JsonRpcId } from "./messages.js";

/** What an incoming JSON value turned out to be. */
export type Envelope =
  | { kind: "request"; id: string | number | null; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "response"; id: JsonRpcId; value: Record<string, unknown> }
  | { kind: "invalid"; id: JsonRpcId; reason: string };

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

/**
 * Classifies one parsed JSON value per JSON-RPC 2.0. Invalid envelopes carry the id to answer with
 * (null when the id itself is missing or unusable) and a reason a person can act on.
 */
export function classify(value: unknown): Envelope {
  if (typeof value !== "object" || value === null) {
    return { kind: "invalid", id: null, reason: `a JSON-RPC message must be an object, got ${describe(value)}` };
  }
  if (Array.isArray(value)) {
    return {
      kind: "invalid",
      id: null,
      reason: "JSON-RPC batches are not supported by ACP; send one message per line",
    };
  }
  const record = value as Record<string, unknown>;
  const hasId = "id" in record;
  const id = hasId && isJsonRpcId(record.id) ? (record.id as JsonRpcId) : null;
  if (hasId && !isJsonRpcId(record.id)) {
    return { kind: "invalid", id: null, reason: `"id" must be a string, a number or null, got ${describe(record.id)}` };
  }
  const method = record.method;
  if (method === undefined && hasId) {
    return { kind: "response", id, value: record };
  }
  if (record.jsonrpc !== "2.0") {
    return {
      kind: "invalid",
      id,
      reason: `"jsonrpc" must be "2.0", got ${JSON.stringify(record.jsonrpc) ?? "nothing"}`,
    };
  }
  if (typeof method !== "string") {
    return { kind: "invalid", id, reason: `"method" must be a string, got ${describe(method)}` };
  }
  const params = record.params;
  if (params !== undefined && params !== null && typeof params !== "object") {
    return { kind: "invalid", id, reason: `"params" must be an object or an array, got ${describe(params)}` };
  }
  return hasId ? { kind: "request", id, method, params } : { kind: "notification", method, params };
}
