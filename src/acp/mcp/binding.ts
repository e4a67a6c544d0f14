/**
 * The MCP-over-ACP binding's data: the `mcp/message` envelope, the inner MCP outcome it carries, the reserved outer
 * error codes, and the per-request MCP 2026-07-28 metadata. Pure functions; the caller and provider use them.
 *
 * An MCP server declared in a session's `mcpServers` with `"type": "acp"` is served by the component that declared
 * it, over the ACP connection: each inner MCP request travels as one `mcp/message` request (the answer carries the
 * inner `result` or `error`), request-scoped MCP notifications as `mcp/message` notifications.
 * See protocol docs: [MCP over ACP](https://agentclientprotocol.com/rfds/mcp-over-acp) (unstable).
 */
import type { MessageMcpRequest } from "../../protocol/unstable.js";
import { ACP_CONNECTION } from "../connect.js";
import type { AcpConnection } from "../acp-connection.js";

/** ACP method that carries MCP requests and request-scoped notifications. */
export const MCP_MESSAGE_METHOD = "mcp/message";
/** The only MCP revision this binding supports (stateless MCP: no `initialize`, metadata on every request). */
export const MCP_PROTOCOL_VERSION = "2026-07-28";
/** Inner MCP `_meta` key carrying the request's MCP protocol version. */
export const MCP_META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** Inner MCP `_meta` key carrying the caller's MCP client capabilities. */
export const MCP_META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** Inner MCP `_meta` key carrying the caller's MCP client info. */
export const MCP_META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

/**
 * Outer ACP error codes of binding failures. Never inner MCP codes: an inner MCP error travels inside a successful
 * `mcp/message` response, in its `error` carrier.
 */
export const McpBindingErrorCode = {
  /** Malformed envelope, or a duplicate active `(serverId, requestId)`. */
  invalidParams: -32602,
  /** The ACP operation was cancelled. */
  requestCancelled: -32800,
  /** A binding resource limit was exceeded. */
  resourceLimitExceeded: -33000,
  /** No registration is available for the requested server id. */
  serverUnavailable: -33001,
  /** The backend or transport failed without a valid MCP outcome. */
  backendFailed: -33002,
} as const;

/** An inner MCP error object: its `code` is an MCP code, never an ACP one. */
export type McpErrorObject = { code: number; message: string; data?: unknown; [key: string]: unknown };

/**
 * The one inner MCP outcome a successful `mcp/message` response carries: a `result` (any JSON, `null` too) or an
 * `error`.
 */
export type McpOutcome =
  | { result: unknown; _meta?: Record<string, unknown> | null }
  | { error: McpErrorObject; _meta?: Record<string, unknown> | null };

/** A request-scoped MCP notification received for an in-flight request (e.g. `notifications/progress`). */
export type McpNotification = {
  /** Inner MCP notification method. */
  method: string;
  /** Inner MCP notification params, if any. */
  params?: Record<string, unknown> | null;
  /** Outer ACP metadata of the envelope, if any. */
  _meta?: Record<string, unknown> | null;
};

/** MCP client identity sent in each request's inner `_meta`. */
export type McpClientInfo = { name: string; version: string; [key: string]: unknown };

/** Defaults of an MCP-over-ACP caller, added to every request whose params do not already carry them. */
export type McpCallerOptions = {
  /** MCP client capabilities (default `{}`). */
  clientCapabilities?: Record<string, unknown>;
  /** MCP client info. */
  clientInfo?: McpClientInfo;
};

/** Wire params of an `mcp/message` request or notification. */
export type McpMessageParams = MessageMcpRequest;

/** The ACP declaration of an MCP server served over the ACP connection: put it in a session's `mcpServers`. */
export type McpServerAcpDeclaration = { type: "acp"; name: string; serverId: string };

/**
 * What MCP-over-ACP helpers take to find a connection: an app context (`connect().agent` / `.client`, a handler's
 * `client` / `agent`) or a connection handle. The official SDK calls it the same.
 */
export interface HasConnectionContext {
  readonly [ACP_CONNECTION]: AcpConnection;
}

/** The ACP connection behind a context; a clear error when handed something else. */
export function connectionOf(context: HasConnectionContext): AcpConnection {
  const connection = (context as Partial<HasConnectionContext> | null | undefined)?.[ACP_CONNECTION];
  if (!connection) {
    throw new TypeError(
      "expected an ACP app context (connect().agent, connect().client, or a handler's agent/client), not " +
        typeof context,
    );
  }
  return connection;
}

/** Whether a value is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a session's `mcpServers` entry is a server provided over ACP. */
export function isMcpServerAcp(server: unknown): server is McpServerAcpDeclaration {
  return (
    isJsonObject(server) &&
    server.type === "acp" &&
    typeof server.name === "string" &&
    typeof server.serverId === "string"
  );
}

/** An inner MCP error thrown by a server handler: answered in the response's `error` carrier, not as an ACP error. */
export class McpProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpProtocolError";
  }

  /** This error as an inner MCP error object. */
  toMcpError(): McpErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

function isMcpErrorObject(value: unknown): value is McpErrorObject {
  return isJsonObject(value) && Number.isInteger(value.code) && typeof value.message === "string";
}

/**
 * Reads a received `mcp/message` response carrier: undefined when it is none (neither a `result` nor a valid
 * `error`). When both are present, `result` wins. An `_meta` that is not an object is dropped.
 */
export function parseMcpOutcome(value: unknown): McpOutcome | undefined {
  if (!isJsonObject(value)) return undefined;
  const meta = isJsonObject(value._meta) ? { _meta: value._meta } : {};
  if (Object.hasOwn(value, "result")) return { result: value.result, ...meta };
  if (isMcpErrorObject(value.error)) return { error: value.error, ...meta };
  return undefined;
}

/**
 * An outcome a server handler may send: exactly one of a defined `result` or a valid `error`; undefined otherwise.
 */
export function sendableOutcome(outcome: unknown): McpOutcome | undefined {
  if (!isJsonObject(outcome)) return undefined;
  const hasResult = Object.hasOwn(outcome, "result");
  if (hasResult === Object.hasOwn(outcome, "error")) return undefined;
  if (hasResult ? outcome.result === undefined : !isMcpErrorObject(outcome.error)) return undefined;
  return parseMcpOutcome(outcome);
}

/**
 * Adds the per-request metadata MCP 2026-07-28 requires (protocol version, client capabilities, client info when
 * given) to inner params, keeping every value the caller already supplied.
 */
export function withMcpRequestMeta(
  params: Record<string, unknown> | null | undefined,
  options: McpCallerOptions = {},
): Record<string, unknown> {
  const base = params ?? {};
  const meta: Record<string, unknown> = { ...(isJsonObject(base._meta) ? base._meta : {}) };
  if (!Object.hasOwn(meta, MCP_META_PROTOCOL_VERSION)) meta[MCP_META_PROTOCOL_VERSION] = MCP_PROTOCOL_VERSION;
  if (!Object.hasOwn(meta, MCP_META_CLIENT_CAPABILITIES))
    meta[MCP_META_CLIENT_CAPABILITIES] = options.clientCapabilities ?? {};
  if (options.clientInfo && !Object.hasOwn(meta, MCP_META_CLIENT_INFO)) meta[MCP_META_CLIENT_INFO] = options.clientInfo;
  return { ...base, _meta: meta };
}

/** A fresh opaque id: `prefix:uuid`. */
export function freshId(prefix: string): string {
  return `${prefix}:${globalThis.crypto.randomUUID()}`;
}
