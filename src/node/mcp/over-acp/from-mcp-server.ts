/**
 * `fromMcpServer`: serves a server built with the MCP TypeScript SDK (`McpServer` or the low-level `Server` of
 * `@modelcontextprotocol/sdk`) over MCP-over-ACP, as the handler of an `McpOverAcpProvider` registration.
 *
 * MCP-over-ACP speaks stateless MCP 2026-07-28 (every request stands alone, with its metadata); the SDK speaks the
 * session-based revisions. Each `mcp/message` request therefore gets a fresh server from `factory`, connected
 * in-process (no network), initialized with the request's client capabilities and info, and asked the one request;
 * its request-scoped notifications (progress, logging) go back as `mcp/message` notifications, and the request's
 * cancellation reaches it as `notifications/cancelled`. `server/discover` is answered with what the server's
 * `initialize` reports (`serverInfo`, `capabilities`, `instructions`). Requests the server would send back to the
 * caller (sampling, elicitation, roots) have no channel in stateless MCP and fail with -32601 inside the server.
 * The SDK is not imported here, not even its types: the factory's caller brings it, and the server and transport
 * shapes used here are declared structurally (`McpSdkServer`), so the shipped declarations compile without the MCP SDK
 * installed (docs/packaging.md; the test checks that the SDK's `McpServer` and `Server` fit).
 * See protocol docs: [MCP over ACP](https://agentclientprotocol.com/rfds/mcp-over-acp) (unstable).
 */
import { RequestError } from "../../../jsonrpc/index.js";
import {
  McpBindingErrorCode,
  MCP_PROTOCOL_VERSION,
  type McpOperationContext,
  type McpOutcome,
  type McpRequestHandler,
} from "../../../acp/mcp/index.js";

/** The session-based MCP revision the in-process session is opened with (the SDK's newest). */
const SESSION_PROTOCOL_VERSION = "2025-11-25";
const INIT_ID = "mcp-over-acp:initialize";

/**
 * A JSON-RPC message as the MCP SDK's transports carry it. The SDK's own types are not named in this module's
 * declarations: the SDK is an optional peer, and a project that does not install it must still compile against them.
 */
export type McpSdkMessage = { jsonrpc: "2.0" } & Record<string, unknown>;

/** The part of the MCP SDK's `Transport` interface a server uses: what `fromMcpServer` hands to `connect`. */
export interface McpSdkTransport {
  start(): Promise<void>;
  send(message: McpSdkMessage): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: McpSdkMessage) => void;
}

/** What `fromMcpServer` needs of a server: the SDK's `McpServer` and its low-level `Server` both have it. */
export interface McpSdkServer {
  connect(transport: McpSdkTransport): Promise<void>;
  close(): Promise<void>;
}

/** Builds the server for one request (an `McpServer` or `Server`): define tools, resources and prompts inside. */
export type McpServerFactory = (context: McpOperationContext) => McpSdkServer | Promise<McpSdkServer>;

/** Options of `fromMcpServer`. */
export type FromMcpServerOptions = {
  /** Called with errors the in-process session reports (a server's transport errors); default: none. */
  onerror?: (error: Error) => void;
};

/** An MCP SDK server adapted to serve MCP-over-ACP requests. */
export type McpServerAdapter = {
  /** The handler to pass to `McpOverAcpProvider.registerServer`. */
  handler: McpRequestHandler;
  /** Closes the servers of requests still in flight (their requests fail as cancelled). */
  close(): Promise<void>;
};

type Message = McpSdkMessage & {
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/** An in-process transport: what the server sends is handed to `deliver`; `receive` feeds it a message. */
class InProcessTransport implements McpSdkTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: McpSdkMessage) => void;
  constructor(private readonly deliver: (message: Message) => void) {}
  async start(): Promise<void> {}
  async send(message: McpSdkMessage): Promise<void> {
    this.deliver(message as Message);
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
  receive(message: Message): void {
    this.onmessage?.(message);
  }
}

/**
 * Serves an MCP SDK server over MCP-over-ACP: `factory` returns a fresh `McpServer` (or `Server`) for each request.
 *
 * ```ts
 * const tools = fromMcpServer(() => {
 *   const server = new McpServer({ name: "project-tools", version: "1.0.0" });
 *   server.registerTool("echo", { inputSchema: { message: z.string() } }, async ({ message }) => ({ content: [{ type: "text", text: message }] }));
 *   return server;
 * });
 * provider.registerServer(connection.agent, { name: "project-tools", handler: tools.handler });
 * ```
 */
export function fromMcpServer(factory: McpServerFactory, options: FromMcpServerOptions = {}): McpServerAdapter {
  const open = new Set<{ close(): Promise<void> }>();
  const handler: McpRequestHandler = async (context) => {
    const server = await factory(context);
    open.add(server);
    try {
      return await serveOne(server, context, options);
    } finally {
      open.delete(server);
      await server.close().catch(() => {});
    }
  };
  return {
    handler,
    async close() {
      await Promise.allSettled([...open].map((server) => server.close()));
    },
  };
}

async function serveOne(
  server: McpSdkServer,
  context: McpOperationContext,
  options: FromMcpServerOptions,
): Promise<McpOutcome> {
  const waiting = new Map<string | number, (message: Message) => void>();
  const transport = new InProcessTransport((message) => {
    if (message.id !== undefined && message.method === undefined) {
      waiting.get(message.id)?.(message);
    } else if (message.id !== undefined) {
      // A request back to the caller: stateless MCP has no channel for it.
      transport.receive({
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: -32601,
          message: `${message.method} is not available over MCP-over-ACP (stateless MCP ${MCP_PROTOCOL_VERSION})`,
        },
      } as Message);
    } else if (message.method) {
      void context.notify(message.method, message.params ?? undefined).catch(() => {});
    }
  });
  transport.onerror = options.onerror;
  const ask = (request: Message) =>
    new Promise<Message>((resolve, reject) => {
      const onAbort = () => {
        waiting.delete(request.id!);
        if (request.id !== INIT_ID)
          transport.receive({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: request.id, reason: "cancelled by the caller" },
          } as Message);
        reject(context.signal.reason ?? RequestError.requestCancelled());
      };
      if (context.signal.aborted) return onAbort();
      context.signal.addEventListener("abort", onAbort, { once: true });
      waiting.set(request.id!, (message) => {
        waiting.delete(request.id!);
        context.signal.removeEventListener("abort", onAbort);
        resolve(message);
      });
      transport.receive(request);
    });
  await server.connect(transport);
  const clientInfo = isInfo(context.clientInfo) ? context.clientInfo : { name: "mcp-over-acp", version: "0" };
  const init = await ask({
    jsonrpc: "2.0",
    id: INIT_ID,
    method: "initialize",
    params: { protocolVersion: SESSION_PROTOCOL_VERSION, capabilities: context.clientCapabilities, clientInfo },
  } as Message);
  if (init.error)
    throw new RequestError(McpBindingErrorCode.backendFailed, `the MCP server refused to start: ${init.error.message}`);
  transport.receive({ jsonrpc: "2.0", method: "notifications/initialized" } as Message);
  if (context.method === "server/discover") {
    const { serverInfo, capabilities, instructions } = init.result as Record<string, unknown>;
    return { result: { serverInfo, capabilities, ...(instructions === undefined ? {} : { instructions }) } };
  }
  const answer = await ask({
    jsonrpc: "2.0",
    id: context.requestId,
    method: context.method,
    ...(context.params === undefined ? {} : { params: context.params }),
  } as Message);
  return answer.error ? { error: answer.error } : { result: answer.result };
}

function isInfo(value: unknown): value is { name: string; version: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { version?: unknown }).version === "string"
  );
}
