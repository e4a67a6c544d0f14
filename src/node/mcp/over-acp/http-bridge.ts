/**
 * `McpOverAcpHttpBridge`: gives an agent whose MCP client only takes URLs the MCP servers its client serves over ACP
 * (`"type": "acp"`), as loopback Streamable HTTP endpoints. Each POST becomes one `mcp/message` request through an
 * `McpOverAcpCaller`; its request-scoped notifications stream back as SSE events; closing the HTTP response cancels
 * that request only. One listener on 127.0.0.1 per ACP connection, closed with it; each server authenticates with
 * its own bearer token (sent in the declaration's `Authorization` header, never in the URL).
 *
 * Stateless MCP 2026-07-28 needs no `initialize`; for the session-based MCP clients in use today (the MCP TypeScript
 * SDK's, 2025-11-25 and earlier) an `initialize` is answered from the server's `server/discover`, and their
 * notifications (`notifications/initialized`, `notifications/cancelled`) are accepted (202) and not forwarded.
 * See protocol docs: [MCP over ACP](https://agentclientprotocol.com/rfds/mcp-over-acp) (unstable).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RequestError } from "../../../jsonrpc/index.js";
import type { AcpConnection } from "../../../acp/acp-connection.js";
import {
  isMcpServerAcp,
  McpBindingErrorCode,
  type HasConnectionContext,
  type McpOverAcpCaller,
  type McpServerAcpDeclaration,
} from "../../../acp/mcp/index.js";
import { connectionOf, isJsonObject } from "../../../acp/mcp/binding.js";
import { readBody, sendError, transportRefusal } from "./http-checks.js";

/** An MCP server declaration with the HTTP transport (the schema's `McpServerHttp` with `type: "http"`). */
export type McpServerHttpDeclaration = {
  type: "http";
  name: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
  _meta?: Record<string, unknown> | null;
};

/** Limits of an `McpOverAcpHttpBridge`. */
export type McpOverAcpHttpBridgeOptions = {
  /** Concurrent HTTP requests admitted per ACP connection; more get HTTP 429 and -33000. Default 64. */
  maxActiveRequests?: number;
  /** Largest request body in bytes (413 beyond). Default 1 MiB. */
  maxRequestBodyBytes?: number;
  /** Response bytes buffered for a slow HTTP reader before its request is cancelled (-33000). Default 1 MiB. */
  maxBufferedResponseBytes?: number;
};

interface Listener {
  readonly server: Server;
  readonly port: number;
  readonly secret: Buffer;
  active: number;
}

const positive = (name: string, value: number) => {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return value;
};
const mac = (secret: Buffer, serverId: string) =>
  createHmac("sha256", secret).update(`mcp-over-acp/http/${serverId}`).digest();

/**
 * Re-exports `"type": "acp"` MCP servers as loopback Streamable HTTP endpoints.
 *
 * ```ts
 * const caller = new McpOverAcpCaller({ clientInfo });
 * const bridge = new McpOverAcpHttpBridge(caller);
 * agent({ unstable: true })
 *   .onNotification(methods.agent.mcp.message, caller.handleNotification)
 *   .onRequest(methods.agent.session.new, async ({ params, client }) => {
 *     const mcpServers = await bridge.adaptServers(client, params.mcpServers); // `acp` entries are now `http` ones
 *   });
 * ```
 */
export class McpOverAcpHttpBridge {
  private readonly listeners = new WeakMap<AcpConnection, Promise<Listener>>();
  private readonly maxActiveRequests: number;
  private readonly maxRequestBodyBytes: number;
  private readonly maxBufferedResponseBytes: number;

  constructor(
    private readonly caller: McpOverAcpCaller,
    options: McpOverAcpHttpBridgeOptions = {},
  ) {
    this.maxActiveRequests = positive("maxActiveRequests", options.maxActiveRequests ?? 64);
    this.maxRequestBodyBytes = positive("maxRequestBodyBytes", options.maxRequestBodyBytes ?? 1024 * 1024);
    this.maxBufferedResponseBytes = positive(
      "maxBufferedResponseBytes",
      options.maxBufferedResponseBytes ?? 1024 * 1024,
    );
  }

  /** An HTTP declaration serving `server` over the connection behind `context`, with its name and metadata. */
  async toHttp(
    context: HasConnectionContext,
    server: McpServerAcpDeclaration & { _meta?: Record<string, unknown> | null },
  ): Promise<McpServerHttpDeclaration> {
    const listener = await this.listener(context);
    const token = mac(listener.secret, server.serverId).toString("base64url");
    return {
      type: "http",
      name: server.name,
      url: `http://127.0.0.1:${listener.port}/${encodeURIComponent(server.serverId)}`,
      headers: [{ name: "Authorization", value: `Bearer ${token}` }],
      ...(server._meta === undefined ? {} : { _meta: server._meta }),
    };
  }

  /** A session's `mcpServers` with every `"type": "acp"` entry replaced by its HTTP declaration; others unchanged. */
  adaptServers<T>(context: HasConnectionContext, servers: readonly T[]): Promise<Array<T | McpServerHttpDeclaration>> {
    return Promise.all(servers.map((server) => (isMcpServerAcp(server) ? this.toHttp(context, server) : server)));
  }

  private listener(context: HasConnectionContext): Promise<Listener> {
    const connection = connectionOf(context);
    if (connection.signal.aborted)
      return Promise.reject(new Error("the ACP connection is closed: no MCP endpoint can be served over it"));
    let listener = this.listeners.get(connection);
    if (!listener) {
      listener = this.start(context, connection);
      this.listeners.set(connection, listener);
      listener.catch(() => this.listeners.delete(connection));
    }
    return listener;
  }

  private start(context: HasConnectionContext, connection: AcpConnection): Promise<Listener> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        server.on("error", (error) =>
          connection.logger.warn("MCP-over-ACP HTTP bridge listener error", { detail: error.message }),
        );
        const listener: Listener = {
          server,
          port: (server.address() as AddressInfo).port,
          secret: randomBytes(32),
          active: 0,
        };
        server.on(
          "request",
          (req: IncomingMessage, res: ServerResponse) =>
            void this.handle(context, listener, req, res).catch((error: unknown) =>
              sendError(req, res, { status: 500, code: -32603, message: `Internal error: ${String(error)}` }),
            ),
        );
        const stop = () => {
          server.close();
          server.closeAllConnections();
        };
        if (connection.signal.aborted) stop();
        else connection.signal.addEventListener("abort", stop, { once: true });
        resolve(listener);
      });
    });
  }

  private async handle(
    context: HasConnectionContext,
    listener: Listener,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const refusal = transportRefusal(req, listener.port);
    if (refusal) return sendError(req, res, refusal);
    const serverId = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname.slice(1));
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const expected = mac(listener.secret, serverId);
    const given = Buffer.from(bearer, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return sendError(req, res, {
        status: 401,
        code: -32600,
        message: "Unauthorized: a valid bearer token for this server is required",
        headers: { "WWW-Authenticate": "Bearer" },
      });
    }
    if (listener.active >= this.maxActiveRequests)
      return sendError(req, res, {
        status: 429,
        code: McpBindingErrorCode.resourceLimitExceeded,
        message: "Too many active MCP requests on this ACP connection",
      });
    listener.active++;
    try {
      const body = await readBody(req, this.maxRequestBodyBytes);
      if (body === undefined)
        return sendError(req, res, {
          status: 413,
          code: McpBindingErrorCode.resourceLimitExceeded,
          message: `Request body over ${this.maxRequestBodyBytes} bytes`,
        });
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return sendError(req, res, { status: 400, code: -32700, message: "Parse error: the body is not JSON" });
      }
      const message = parsed as Record<string, unknown>;
      if (!isJsonObject(parsed) || message.jsonrpc !== "2.0" || typeof message.method !== "string") {
        return sendError(req, res, {
          status: 400,
          code: -32600,
          message: "Invalid Request: expected one JSON-RPC request or notification (no batches)",
        });
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      if (typeof message.id !== "string" && typeof message.id !== "number")
        return sendError(req, res, {
          status: 400,
          code: -32600,
          message: "Invalid Request: id must be a string or a number",
        });
      const params =
        message.params === undefined || message.params === null
          ? undefined
          : isJsonObject(message.params)
            ? message.params
            : null;
      if (params === null)
        return sendError(
          req,
          res,
          { status: 400, code: -32602, message: "Invalid params: params must be an object" },
          message.id,
        );
      await this.forward(context, serverId, message.id, message.method, params, res);
    } finally {
      listener.active--;
    }
  }

  private async forward(
    context: HasConnectionContext,
    serverId: string,
    id: string | number,
    method: string,
    params: Record<string, unknown> | undefined,
    res: ServerResponse,
  ): Promise<void> {
    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort(new Error("the HTTP client closed the response"));
    };
    res.on("close", onClose);
    let streaming = false;
    const write = (payload: object) => {
      if (!streaming) {
        streaming = true;
        res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      }
      res.write(`event: message\ndata: ${JSON.stringify(payload)}\n\n`);
      if (res.writableLength > this.maxBufferedResponseBytes)
        controller.abort(
          new RequestError(McpBindingErrorCode.resourceLimitExceeded, "the HTTP client reads too slowly"),
        );
    };
    const initialize = method === "initialize";
    try {
      const outcome = await this.caller.request(
        context,
        serverId,
        initialize ? "server/discover" : method,
        initialize ? undefined : params,
        {
          signal: controller.signal,
          onNotification: (notification) =>
            write({
              jsonrpc: "2.0",
              method: notification.method,
              ...(notification.params == null ? {} : { params: notification.params }),
            }),
        },
      );
      let reply: object;
      if ("error" in outcome) reply = { jsonrpc: "2.0", id, error: outcome.error };
      else if (initialize)
        reply = {
          jsonrpc: "2.0",
          id,
          result: { ...(outcome.result as object), protocolVersion: params?.protocolVersion ?? "2025-11-25" },
        };
      else reply = { jsonrpc: "2.0", id, result: outcome.result };
      if (controller.signal.aborted) throw controller.signal.reason;
      if (streaming) {
        write(reply);
        res.end();
      } else {
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(reply));
      }
    } catch (error) {
      if (res.destroyed) return;
      const code = error instanceof RequestError ? error.code : McpBindingErrorCode.backendFailed;
      const reply = {
        jsonrpc: "2.0",
        id,
        error: {
          code,
          message: error instanceof Error ? error.message : String(error),
          ...(error instanceof RequestError && error.data !== undefined ? { data: error.data } : {}),
        },
      };
      if (streaming) {
        res.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
        res.end();
      } else {
        res
          .writeHead(code === McpBindingErrorCode.resourceLimitExceeded ? 429 : 200, {
            "Content-Type": "application/json",
          })
          .end(JSON.stringify(reply));
      }
    } finally {
      res.off("close", onClose);
    }
  }
}
