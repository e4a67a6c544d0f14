/**
 * MCP servers for agent sessions, with the official MCP TypeScript SDK: `createMcpConnector()` connects each session
 * to the servers the client names in `session/new`, `load` and `resume` (stdio, Streamable HTTP, SSE), lists their
 * tools, calls them, and closes them with the session (a stdio server's process is stopped: end of input, then
 * SIGTERM, then SIGKILL). A server that fails to start (or to answer within the startup timeout) is marked failed
 * with a reason for the user; the others, and the session, carry on.
 * The spec: agents MUST support stdio MCP servers; `mcpCapabilities.http` / `.sse` advertise the other transports
 * (the client MUST NOT send them otherwise); stdio servers get `command`, `args` and `env`; HTTP and SSE ones `url`
 * and `headers`.
 * @see https://agentclientprotocol.com/protocol/session-setup#mcp-servers
 */
import { statSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * The MCP SDK, loaded on first use: importing it costs ~250 ms, which every `@acpkit/sdk/node` user (an agent on stdio)
 * would otherwise pay at startup whether or not a client ever passes an MCP server.
 */
interface McpSdk {
  Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
  StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
  StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
  SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
}
let sdk: Promise<McpSdk> | undefined;
/**
 * Loads the MCP SDK (an optional peer: `OptionalDependencyMissingError` when it is not installed, tried again next
 * time).
 */
function loadSdk(): Promise<McpSdk> {
  sdk ??= Promise.all([
    importOptional<typeof import("@modelcontextprotocol/sdk/client/index.js")>(
      MCP_SDK_DEPENDENCY,
      "@modelcontextprotocol/sdk/client/index.js",
    ),
    importOptional<typeof import("@modelcontextprotocol/sdk/client/stdio.js")>(
      MCP_SDK_DEPENDENCY,
      "@modelcontextprotocol/sdk/client/stdio.js",
    ),
    importOptional<typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")>(
      MCP_SDK_DEPENDENCY,
      "@modelcontextprotocol/sdk/client/streamableHttp.js",
    ),
    importOptional<typeof import("@modelcontextprotocol/sdk/client/sse.js")>(
      MCP_SDK_DEPENDENCY,
      "@modelcontextprotocol/sdk/client/sse.js",
    ),
  ]).then(
    ([client, stdio, http, sse]) => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      SSEClientTransport: sse.SSEClientTransport,
    }),
    (error: unknown) => {
      sdk = undefined;
      throw error;
    },
  );
  return sdk;
}
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type {
  McpConnectContext,
  McpConnector,
  McpServerStatus,
  McpSessionTools,
  McpToolInfo,
  McpToolResult,
} from "../../agent/toolkit/mcp-connector.js";
import { isMcpServerAcp, McpOverAcpCaller, type McpServerAcpDeclaration } from "../../acp/mcp/index.js";
import { McpOverAcpHttpBridge } from "./over-acp/http-bridge.js";
import type { McpCapabilities, McpServer } from "../../protocol/index.js";
import { StderrTail } from "../process/stderr-tail.js";
import { importOptional, MCP_SDK_DEPENDENCY } from "../optional-dependency.js";

/** Options of `createMcpConnector`. */
export interface McpConnectorOptions {
  /** How long a server may take to start and answer `initialize` and `tools/list`. Default 15 s. */
  startupTimeoutMs?: number;
  /** Default timeout of a tool call. Default 60 s. */
  callTimeoutMs?: number;
  /** Which remote transports to offer (and advertise). Default: both. Stdio is always on. */
  http?: boolean;
  sse?: boolean;
  /**
   * Serve `"type": "acp"` servers (MCP-over-ACP, unstable: the client serves them over the ACP connection) and
   * advertise `mcpCapabilities.acp`. They are reached through a loopback HTTP bridge per connection
   * (`McpOverAcpHttpBridge`), so they behave as HTTP servers. Default false.
   */
  acp?: boolean;
  /** The MCP client's name and version as MCP servers see it. */
  clientInfo?: { name: string; version: string };
  logger?: Logger;
}

/** The connector to pass as `toolkitAgent({ mcp: createMcpConnector() })`. */
export function createMcpConnector(options: McpConnectorOptions = {}): McpConnector {
  const capabilities: McpCapabilities = {
    http: options.http ?? true,
    sse: options.sse ?? true,
    ...(options.acp ? { acp: true } : {}),
  };
  if (!options.acp)
    return { capabilities, connect: (servers, context) => McpConnections.connect(servers, { ...context, ...options }) };
  const caller = new McpOverAcpCaller(options.clientInfo ? { clientInfo: options.clientInfo } : {});
  const bridge = new McpOverAcpHttpBridge(caller);
  return {
    capabilities,
    connect: (servers, context) => McpConnections.connect(servers, { ...context, ...options, bridge }),
    handleMcpMessage: (params, connection) => caller.handleNotification({ params, client: connection }),
  };
}

/** How `"type": "acp"` servers are reached: through the bridge, over the session's connection. */
interface AcpReach {
  bridge?: McpOverAcpHttpBridge;
  connection?: McpConnectContext["connection"];
}

interface Entry {
  status: McpServerStatus;
  client?: Client;
}

type Kind = McpServerStatus["transport"];

function kindOf(server: McpServer): Kind {
  return "type" in server && (server.type === "http" || server.type === "sse") ? server.type : "stdio";
}

function headersOf(headers: ReadonlyArray<{ name: string; value: string }>): Record<string, string> {
  return Object.fromEntries(headers.map(({ name, value }) => [name, value]));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Rejects after `ms` unless `promise` settled first. */
function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The MCP connections of one session. */
export class McpConnections implements McpSessionTools {
  readonly #entries: Entry[];
  readonly #callTimeoutMs: number;
  #closing: Promise<void> | undefined;

  private constructor(entries: Entry[], callTimeoutMs: number) {
    this.#entries = entries;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /** Connects to every server in parallel; never rejects for a failing server (see `servers`). */
  static async connect(
    servers: readonly McpServer[],
    options: McpConnectorOptions & AcpReach & { sessionId?: string; cwd?: string } = {},
  ): Promise<McpConnections> {
    const entries = await Promise.all(servers.map((server) => connectOne(server, options)));
    return new McpConnections(entries, options.callTimeoutMs ?? 60_000);
  }

  get servers(): readonly McpServerStatus[] {
    return this.#entries.map((entry) => ({ ...entry.status, tools: [...entry.status.tools] }));
  }

  tools(): McpToolInfo[] {
    return this.#entries.flatMap((entry) => (entry.status.state === "connected" ? entry.status.tools : []));
  }

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown> = {},
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<McpToolResult> {
    const entry = this.#entries.find((candidate) => candidate.status.name === server);
    if (entry === undefined) throw new Error(`no MCP server named "${server}" in this session`);
    if (entry.client === undefined || entry.status.state !== "connected") {
      throw new Error(
        `MCP server "${server}" is not connected ` +
          `(${entry.status.state}${entry.status.error ? `: ${entry.status.error}` : ""})`,
      );
    }
    const requestOptions: { timeout: number; signal?: AbortSignal } = {
      timeout: options.timeoutMs ?? this.#callTimeoutMs,
    };
    if (options.signal !== undefined) requestOptions.signal = options.signal;
    return (await entry.client.callTool({ name: tool, arguments: args }, undefined, requestOptions)) as McpToolResult;
  }

  /** Closes every connection; stdio servers are stopped. Idempotent. */
  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      await Promise.all(
        this.#entries.map(async (entry) => {
          const client = entry.client;
          entry.client = undefined;
          if (entry.status.state === "connected") entry.status.state = "closed";
          await client?.close().catch(() => {});
        }),
      );
    })());
  }
}

async function connectOne(
  server: McpServer,
  options: McpConnectorOptions & AcpReach & { cwd?: string },
): Promise<Entry> {
  if (isMcpServerAcp(server)) return connectOverAcp(server, options);
  const kind = kindOf(server);
  const status: McpServerStatus = { name: server.name, transport: kind, state: "failed", tools: [] };
  const logger = options.logger ?? silentLogger;
  if ((kind === "http" && options.http === false) || (kind === "sse" && options.sse === false)) {
    status.error = `${kind.toUpperCase()} MCP servers are not supported by this agent`;
    return { status };
  }
  const stderr = new StderrTail({ maxLines: 5 });
  let transport: Transport;
  let mcp: McpSdk;
  try {
    mcp = await loadSdk();
    transport = makeTransport(mcp, server, kind, options.cwd, stderr);
  } catch (error) {
    status.error = messageOf(error);
    logger.warn("an MCP server could not be started", { server: server.name, transport: kind, detail: status.error });
    return { status };
  }
  const client: Client = new mcp.Client(options.clientInfo ?? { name: "acpkit", version: "0.1.0" }, {
    capabilities: {},
  });
  const startupMs = options.startupTimeoutMs ?? 15_000;
  try {
    await deadline(
      (async () => {
        await client.connect(transport, { timeout: startupMs });
        if (client.getServerCapabilities()?.tools !== undefined)
          status.tools = await listAllTools(client, server.name, startupMs);
      })(),
      startupMs,
      "the server did not start and list its tools",
    );
    status.state = "connected";
    if (transport instanceof mcp.StdioClientTransport && transport.pid !== null) status.pid = transport.pid;
    logger.info("connected an MCP server", { server: server.name, transport: kind, tools: status.tools.length });
    return { status, client };
  } catch (error) {
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    stderr.end();
    const lines = stderr.lines().filter((line) => line.trim() !== "");
    status.error = messageOf(error) + (lines.length > 0 ? ` (stderr: ${lines.join(" | ")})` : "");
    logger.warn("an MCP server failed to start", { server: server.name, transport: kind, detail: status.error });
    return { status };
  }
}

/** A server the client serves over ACP, reached as the loopback HTTP endpoint the bridge gives it. */
async function connectOverAcp(
  server: McpServerAcpDeclaration,
  options: McpConnectorOptions & AcpReach & { cwd?: string },
): Promise<Entry> {
  const failed = (error: string): Entry => ({
    status: { name: server.name, transport: "acp", state: "failed", error, tools: [] },
  });
  if (!options.bridge)
    return failed("MCP servers served over ACP are not supported by this agent (mcpCapabilities.acp is off)");
  if (!options.connection)
    return failed("MCP servers served over ACP need the session's ACP connection, which this agent did not pass");
  let http: McpServer;
  try {
    http = (await options.bridge.toHttp(options.connection, server)) as McpServer;
  } catch (error) {
    return failed(messageOf(error));
  }
  const entry = await connectOne(http, { ...options, http: true, bridge: undefined });
  entry.status.transport = "acp";
  return entry;
}

function makeTransport(
  mcp: McpSdk,
  server: McpServer,
  kind: Kind,
  cwd: string | undefined,
  stderr: StderrTail,
): Transport {
  if (kind === "stdio" && "command" in server) {
    const params: ConstructorParameters<typeof StdioClientTransport>[0] = {
      command: server.command,
      args: [...server.args],
      env: Object.fromEntries(server.env.map(({ name, value }) => [name, value])),
      stderr: "pipe",
    };
    if (cwd !== undefined && isDirectory(cwd)) params.cwd = cwd;
    const transport = new mcp.StdioClientTransport(params);
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    return transport;
  }
  const remote = server as { url: string; headers: Array<{ name: string; value: string }> };
  const url = new URL(remote.url);
  const requestInit = { headers: headersOf(remote.headers) };
  return kind === "http"
    ? new mcp.StreamableHTTPClientTransport(url, { requestInit })
    : new mcp.SSEClientTransport(url, { requestInit });
}

/** Stdio servers start in the session's cwd when it exists here (else in the agent's own). */
function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function listAllTools(client: Client, server: string, timeoutMs: number): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    for (const tool of page.tools) {
      const info: McpToolInfo = { server, name: tool.name, inputSchema: tool.inputSchema as Record<string, unknown> };
      if (tool.title !== undefined) info.title = tool.title;
      if (tool.description !== undefined) info.description = tool.description;
      tools.push(info);
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
