/**
 * `@acpkit/sdk/experimental/mcp-server`: serve an MCP TypeScript SDK server (`@modelcontextprotocol/sdk`) over
 * MCP-over-ACP, a drop-in for `@agentclientprotocol/sdk/experimental/mcp-server`. Unstable: may change in any release.
 */
export {
  fromMcpServer,
  type FromMcpServerOptions,
  type McpSdkServer,
  type McpSdkTransport,
  type McpServerAdapter,
  type McpServerFactory,
} from "../../node/mcp/over-acp/from-mcp-server.js";
