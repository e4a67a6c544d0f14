/**
 * The MCP servers of a session, as the reference agent sees them: a hub that lists each server with its tools and
 * calls a tool. `connectMcpServers` is the one place that connects; until the toolkit's MCP connector
 * (`src/node/mcp-servers.ts`) is wired in, it reports each server as configured but not connected.
 * @see https://agentclientprotocol.com/protocol/session-setup#mcp-servers
 */
import type { McpServer } from "../../protocol/index.js";

export interface McpToolInfo {
  name: string;
  description?: string;
  /** JSON Schema of the tool's arguments. */
  inputSchema?: Record<string, unknown>;
}

export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  connected: boolean;
  /** Why it is not connected. */
  error?: string;
  tools: McpToolInfo[];
}

/** What a tool call returned: its text content joined, and whether the server flagged it as an error. */
export interface McpCallResult {
  text: string;
  isError: boolean;
}

export interface McpHub {
  servers(): McpServerStatus[];
  /** Calls `tool` on `server`; rejects for an unknown or unconnected server. Aborts with `signal`. */
  call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult>;
  close(): Promise<void>;
}

export function transportOf(server: McpServer): McpServerStatus["transport"] {
  return "type" in server && (server.type === "http" || server.type === "sse") ? server.type : "stdio";
}

/** Connects to the session's MCP servers (never rejects: a server that fails is listed with its error). */
export async function connectMcpServers(servers: readonly McpServer[]): Promise<McpHub> {
  const statuses: McpServerStatus[] = servers.map((server) => ({
    name: server.name,
    transport: transportOf(server),
    connected: false,
    error: "MCP connections are not available in this build",
    tools: [],
  }));
  return {
    servers: () => statuses.map((status) => ({ ...status, tools: [...status.tools] })),
    call: async (server) => {
      throw new Error(statuses.some((s) => s.name === server) ? `MCP server "${server}" is not connected` : `no MCP server named "${server}" in this session`);
    },
    close: async () => {},
  };
}

/** The hub of a session without MCP servers. */
export const NO_MCP_SERVERS: McpHub = {
  servers: () => [],
  call: async (server) => {
    throw new Error(`no MCP server named "${server}" in this session`);
  },
  close: async () => {},
};
