/**
 * `node/mcp/`: MCP servers with the official MCP TypeScript SDK (an optional dependency, loaded on first use):
 * `createMcpConnector` connects an agent's sessions to the servers the client names (stdio, Streamable HTTP, SSE);
 * `over-acp/` serves an MCP SDK server over MCP-over-ACP (`fromMcpServer`) and re-exposes the client's MCP-over-ACP
 * servers as loopback HTTP endpoints (`McpOverAcpHttpBridge`).
 *
 * Safety contract: a session's stdio MCP servers are stopped with the session; the HTTP bridge listens on 127.0.0.1
 * only, one bearer token per server.
 */
export { createMcpConnector, McpConnections, type McpConnectorOptions } from "./mcp-servers.js";
export {
  fromMcpServer,
  type FromMcpServerOptions,
  type McpSdkServer,
  type McpSdkTransport,
  type McpServerAdapter,
  type McpServerFactory,
} from "./over-acp/from-mcp-server.js";
export {
  McpOverAcpHttpBridge,
  type McpOverAcpHttpBridgeOptions,
  type McpServerHttpDeclaration,
} from "./over-acp/http-bridge.js";
