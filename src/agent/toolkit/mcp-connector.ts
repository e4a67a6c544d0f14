/**
 * The MCP seam of the toolkit: what connects a session to the MCP servers the client names in `session/new`,
 * `load` and `resume`. Browser-safe (types only); the Node implementation that spawns stdio servers and speaks
 * Streamable HTTP and SSE is `createMcpConnector()` in `@acpkit/sdk/node`.
 * The spec: agents MUST support stdio MCP servers; HTTP and SSE only when advertised in `mcpCapabilities`; the
 * client passes the servers to connect to with each session setup request.
 * @see https://agentclientprotocol.com/protocol/session-setup#mcp-servers
 */
import type { McpCapabilities, McpServer } from "../../protocol/index.js";
import type { MessageMcpNotification } from "../../protocol/unstable.js";
import type { HasConnectionContext } from "../../acp/mcp/binding.js";

/** A tool of a connected MCP server. */
export interface McpToolInfo {
  /** The MCP server's name (from the `McpServer` entry). */
  server: string;
  name: string;
  title?: string;
  description?: string;
  /** The tool's JSON Schema for its arguments. */
  inputSchema: Record<string, unknown>;
}

/** What `callTool` returns: the MCP `CallToolResult` (content blocks, optional structured content, `isError`). */
export interface McpToolResult {
  content: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/** How each requested server fared. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse" | "acp";
  state: "connected" | "failed" | "closed";
  /** Why it failed (a message for the user; never the server's env or headers). */
  error?: string;
  tools: McpToolInfo[];
  /** The process id of a running stdio server. */
  pid?: number;
}

/** The MCP connections of one session. */
export interface McpSessionTools {
  readonly servers: readonly McpServerStatus[];
  /** The tools of every connected server. */
  tools(): McpToolInfo[];
  /** Calls a tool; rejects if the server is not connected or the call fails (an `isError` result resolves). */
  callTool(
    server: string,
    tool: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<McpToolResult>;
  /** Closes every connection (stdio servers are stopped). Idempotent. */
  close(): Promise<void>;
}

/** Connects sessions to MCP servers; `capabilities` is what `initialize` advertises (only what really works). */
export interface McpConnector {
  readonly capabilities: McpCapabilities;
  /** Connects to `servers`; never rejects for a server that fails (its status says why). */
  connect(servers: readonly McpServer[], context: McpConnectContext): Promise<McpSessionTools>;
  /**
   * Receives the client's `mcp/message` notifications (MCP-over-ACP: progress and other events of a request to a
   * server the client serves); the toolkit calls it for connectors that serve `"type": "acp"` servers.
   */
  handleMcpMessage?(params: MessageMcpNotification, connection: HasConnectionContext): void;
}

/** The session a connector connects servers for, and the ACP connection it came on (for `"type": "acp"` servers). */
export interface McpConnectContext {
  sessionId: string;
  cwd: string;
  /** The ACP connection of the session: MCP servers the client serves over ACP are reached through it. */
  connection?: HasConnectionContext;
}
