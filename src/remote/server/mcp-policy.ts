/**
 * Client-named stdio MCP servers: `session/new`, `session/load`, `session/resume` and `session/fork` may name MCP
 * servers by a command line, which the agent then runs on the server's machine, as the user serving it. On a server
 * others reach, that is a shell for whoever may call it; `stdioMcpServers: "refuse"` answers such a request with
 * -32602 before it reaches the agent (HTTP, SSE and ACP MCP servers still pass: they are URLs, not commands).
 *
 * Spec: https://agentclientprotocol.com/protocol/session-setup#mcp-servers
 */
import { isRecord } from "../../jsonrpc/messages.js";

/** Whether the server passes client-named stdio MCP servers to the agent. */
export type StdioMcpPolicy = "allow" | "refuse";

/** Whether an `mcpServers` entry is a command to run: a stdio server (v1: no `type`; v2: `type: "stdio"`). */
export function isStdioMcpServer(entry: unknown): boolean {
  if (!isRecord(entry)) return false;
  return entry.type === undefined || entry.type === "stdio" || "command" in entry;
}

/**
 * The JSON-RPC error for a request that names stdio MCP servers when the policy refuses them, else undefined.
 */
export function stdioMcpRefusal(
  policy: StdioMcpPolicy,
  message: Record<string, unknown>,
): { code: number; message: string; data: unknown } | undefined {
  if (policy === "allow" || typeof message.method !== "string" || !isRecord(message.params)) return undefined;
  const servers = message.params.mcpServers;
  if (!Array.isArray(servers)) return undefined;
  const named = servers.filter(isStdioMcpServer).map((entry) => (isRecord(entry) ? entry.name : undefined));
  if (named.length === 0) return undefined;
  return {
    code: -32602,
    message:
      `Invalid params: this server does not start MCP servers named by clients as commands (stdio), since they would ` +
      `run on the server's machine; use an HTTP MCP server, or ask the operator to allow them (--allow-stdio-mcp)`,
    data: { refused: named.map((name) => (typeof name === "string" ? name : null)) },
  };
}
