/**
 * JSON-RPC 2.0 message shapes, as they cross the wire. Knows nothing of ACP.
 * Names match `@agentclientprotocol/sdk` so code written against it compiles unchanged.
 */

/** JSON-RPC request identifier. */
export type JsonRpcId = string | number | null;

/** Raw JSON-RPC request message. */
export type AnyRequest = {
  jsonrpc: "2.0";
  id: string | number | null;
  method: string;
  params?: unknown;
};

/** Raw JSON-RPC notification message (no `id`). */
export type AnyNotification = {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
};

/** The `error` member of a JSON-RPC error response. */
export type ErrorResponse = {
  code: number;
  message: string;
  data?: unknown;
};

/** A response body: a result or an error, never both. */
export type Result<T> = { result: T } | { error: ErrorResponse };

/** Raw JSON-RPC response message. */
export type AnyResponse = {
  jsonrpc: "2.0";
  id: string | number | null;
} & Result<unknown>;

/** Any JSON-RPC message that can pass through a stream. */
export type AnyMessage = AnyRequest | AnyResponse | AnyNotification;

/** A value that may or may not be a promise. */
export type MaybePromise<T> = T | Promise<T>;

/** True for a plain (non-array) object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True when `value` is a valid JSON-RPC id (string, finite number or null). */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** True for a well-formed request envelope. */
export function isRequestMessage(value: unknown): value is AnyRequest {
  return (
    isRecord(value) &&
    value.jsonrpc === "2.0" &&
    typeof value.method === "string" &&
    "id" in value &&
    isJsonRpcId(value.id)
  );
}

/** True for a well-formed notification envelope. */
export function isNotificationMessage(value: unknown): value is AnyNotification {
  return isRecord(value) && value.jsonrpc === "2.0" && typeof value.method === "string" && !("id" in value);
}

/** True for a well-formed response envelope (exactly one of `result` and `error`). */
export function isResponseMessage(value: unknown): value is AnyResponse {
  if (!isRecord(value) || value.jsonrpc !== "2.0" || "method" in value || !("id" in value) || !isJsonRpcId(value.id))
    return false;
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (hasResult === hasError) return false;
  if (hasError) {
    const error = value.error;
    return (
      isRecord(error) &&
      typeof error.code === "number" &&
      Number.isInteger(error.code) &&
      typeof error.message === "string"
    );
  }
  return true;
}

/** True for any well-formed JSON-RPC message. */
export function isJsonRpcMessage(value: unknown): value is AnyMessage {
  return isRequestMessage(value) || isNotificationMessage(value) || isResponseMessage(value);
}
