/**
 * The MCP servers of a session, as the reference agent uses them: the toolkit connects them (`createMcpConnector()`
 * from `@acpkit/sdk/node`, passed as `toolkitAgent({ mcp })`, which also advertises `mcpCapabilities` and closes them
 * with the session); this module gives a turn its session's connections and turns a tool's result into text.
 * @see https://agentclientprotocol.com/protocol/session-setup#mcp-servers
 */
import type { McpConnector, McpSessionTools, McpToolResult, PromptTurn } from "@acpkit/sdk/agent-toolkit";
import type { Logger } from "@acpkit/sdk";
import { createMcpConnector } from "@acpkit/sdk/node";

/**
 * The connector of the reference agent: stdio, Streamable HTTP and SSE servers, and with `acp` (the unstable
 * protocol) the servers the client serves over ACP.
 */
export function referenceMcpConnector(
  logger: Logger,
  clientInfo: { name: string; version: string },
  acp = false,
): McpConnector {
  return createMcpConnector({ logger, clientInfo, acp });
}

/** The connections of a session without MCP servers. */
export const NO_MCP_SERVERS: McpSessionTools = {
  servers: [],
  tools: () => [],
  callTool: async (server) => {
    throw new Error(`no MCP server named "${server}" in this session`);
  },
  close: async () => {},
};

/** The MCP connections of the turn's session. */
export function sessionMcp<S>(turn: PromptTurn<S>): McpSessionTools {
  return turn.session.mcp ?? NO_MCP_SERVERS;
}

/** A tool result as text: its text blocks joined (other blocks named), else its structured content as JSON. */
export function mcpResultText(result: McpToolResult): string {
  const parts = (result.content ?? []).map((block) =>
    block.type === "text" && typeof block.text === "string" ? block.text : `[${String(block.type)} content]`,
  );
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join("\n");
}
