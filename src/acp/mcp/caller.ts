/**
 * The calling side of MCP-over-ACP: sends inner MCP requests to servers the peer declared with `"type": "acp"`,
 * as `mcp/message` requests, and routes the peer's request-scoped `mcp/message` notifications to the request
 * they belong to. Usually an agent calling its client's tools.
 * See protocol docs: [MCP over ACP](https://agentclientprotocol.com/rfds/mcp-over-acp) (unstable).
 */
import { RequestError } from "../../jsonrpc/index.js";
import type { AcpConnection } from "../acp-connection.js";
import {
  connectionOf,
  freshId,
  MCP_MESSAGE_METHOD,
  McpBindingErrorCode,
  parseMcpOutcome,
  withMcpRequestMeta,
  type HasConnectionContext,
  type McpCallerOptions,
  type McpMessageParams,
  type McpNotification,
  type McpOutcome,
} from "./binding.js";

/** Options of one MCP-over-ACP request. */
export type McpRequestOptions = {
  /** Logical MCP request id (default: fresh and random). Never reuse one still active for the same server. */
  requestId?: string;
  /** Aborting it sends `$/cancel_request` for the outer request; best effort, the server may still answer. */
  signal?: AbortSignal;
  /** Receives the MCP notifications of this request (progress, subscription events) until it settles. */
  onNotification?: (notification: McpNotification) => void;
  /** Outer ACP metadata of the `mcp/message` envelope (not the inner MCP `_meta`). */
  _meta?: Record<string, unknown>;
};

/** The parts of an `mcp/message` notification handler's context the caller uses (v1 app contexts satisfy it). */
export type McpMessageNotificationContext = {
  params: McpMessageParams;
  client: HasConnectionContext;
};

type Listener = (notification: McpNotification) => void;

const routeKey = (serverId: string, requestId: string) => JSON.stringify([serverId, requestId]);

/**
 * Calls MCP servers an ACP peer declared with `"type": "acp"`. One caller per app: register `handleNotification`
 * for `mcp/message` notifications so progress and subscription events reach the request that owns them.
 *
 * ```ts
 * const mcp = new McpOverAcpCaller({ clientInfo: { name: "my-agent", version: "1" } });
 * agent()
 *   .onNotification(methods.agent.mcp.message, mcp.handleNotification)
 *   .onRequest(methods.agent.session.prompt, async ({ client }) => {
 *     const outcome = await mcp.request(client, serverId, "tools/call", { name, arguments: {} });
 *   });
 * ```
 */
export class McpOverAcpCaller {
  private readonly routes = new WeakMap<AcpConnection, Map<string, Listener>>();

  constructor(private readonly options: McpCallerOptions = {}) {}

  /**
   * Sends one MCP request to a declared server over the connection behind `context` and returns its inner outcome.
   * The MCP 2026-07-28 metadata is added to `params._meta` unless present. Outer failures (cancellation, binding
   * errors, a response that carries no outcome) reject with a `RequestError`; inner MCP errors resolve as `{ error }`.
   */
  async request(
    context: HasConnectionContext,
    serverId: string,
    method: string,
    params?: Record<string, unknown> | null,
    options: McpRequestOptions = {},
  ): Promise<McpOutcome> {
    const connection = connectionOf(context);
    let routes = this.routes.get(connection);
    if (!routes) this.routes.set(connection, (routes = new Map()));
    const requestId = options.requestId ?? freshId("mcp-request");
    const key = routeKey(serverId, requestId);
    if (routes.has(key))
      throw new Error(`MCP request ${requestId} is already active for server ${serverId}; use a fresh requestId`);
    routes.set(key, options.onNotification ?? (() => {}));
    try {
      const envelope = {
        serverId,
        requestId,
        method,
        params: withMcpRequestMeta(params, this.options),
        ...(options._meta ? { _meta: options._meta } : {}),
      };
      const response = await connection.request(
        MCP_MESSAGE_METHOD,
        envelope,
        options.signal ? { cancellationSignal: options.signal } : undefined,
      );
      const outcome = parseMcpOutcome(response);
      if (!outcome)
        throw new RequestError(McpBindingErrorCode.backendFailed, "Invalid MCP-over-ACP response carrier", {
          response,
        });
      return outcome;
    } finally {
      routes.delete(key);
    }
  }

  /**
   * Routes an incoming `mcp/message` notification to its request's `onNotification`: register it with
   * `onNotification(methods.agent.mcp.message, caller.handleNotification)`. Notifications for unknown or settled
   * requests are dropped; a listener that throws is reported through the connection's logger.
   */
  readonly handleNotification = (context: McpMessageNotificationContext): void => {
    const connection = connectionOf(context.client);
    const { serverId, requestId, method, params, _meta } = context.params;
    const listener = this.routes.get(connection)?.get(routeKey(serverId, requestId));
    if (!listener) return;
    try {
      listener({ method, ...(params == null ? {} : { params }), ...(_meta == null ? {} : { _meta }) });
    } catch (error) {
      connection.logger.error("MCP-over-ACP notification listener failed", {
        serverId,
        requestId,
        method,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  };
}
