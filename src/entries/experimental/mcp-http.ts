/**
 * `@acpkit/sdk/experimental/mcp-http`: MCP servers served over ACP, re-exported as loopback Streamable HTTP endpoints
 * for MCP clients that only take URLs. A drop-in for `@agentclientprotocol/sdk/experimental/mcp-http`. Unstable.
 */
export {
  McpOverAcpHttpBridge,
  type McpOverAcpHttpBridgeOptions,
  type McpServerHttpDeclaration,
} from "../../node/mcp/over-acp/http-bridge.js";
