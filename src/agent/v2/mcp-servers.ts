/**
 * `assertSupportedMcpServers` of the v2 API: refuses (-32602) the first MCP server of a `session/new`,
 * `session/resume` or `session/fork` that the agent cannot accept.
 */
import { RequestError, isRecord } from "../../jsonrpc/index.js";

/** The MCP transports of `McpCapabilities` in v2's stable schema (`src/agent/v2/mcp-servers.test.ts` checks). */
export const V2_MCP_TRANSPORTS: readonly string[] = Object.freeze(["stdio", "http"]);

/** The MCP transports of `McpCapabilities` in v2's unstable schema (adds MCP-over-ACP). */
export const V2_UNSTABLE_MCP_TRANSPORTS: readonly string[] = Object.freeze(["stdio", "http", "acp"]);

/**
 * Throws -32602 for the first server whose `name` repeats an earlier one's (data `{ name }`), or whose `type` is not
 * a transport the agent advertised in `capabilities.session.mcp` with a non-null value (data `{ type }`): v1's
 * `sse`, unknown and `_`-prefixed types included (an agent with a custom transport handles those first).
 */
export function assertSupportedMcpServersOf(transports: readonly string[]) {
  return (
    mcpServers: ReadonlyArray<{ name?: unknown; type?: unknown }> | null | undefined,
    capabilities: Record<string, unknown> | null | undefined,
  ): void => {
    const names = new Set<string>();
    for (const server of mcpServers ?? []) {
      const { name, type } = isRecord(server) ? server : { name: undefined, type: undefined };
      if (typeof name === "string") {
        if (names.has(name)) throw RequestError.invalidParams({ name }, `Duplicate MCP server name ${name}`);
        names.add(name);
      }
      const advertised = typeof type === "string" && transports.includes(type) ? capabilities?.[type] : undefined;
      if (advertised === undefined || advertised === null) {
        throw RequestError.invalidParams({ type }, `Unsupported MCP server transport ${String(type)}`);
      }
    }
  };
}

/** `assertSupportedMcpServers` of `@acpkit/sdk/experimental/v2`. */
export const assertSupportedMcpServers = assertSupportedMcpServersOf(V2_MCP_TRANSPORTS);

/** `assertSupportedMcpServers` of `@acpkit/sdk/experimental/v2/unstable` (MCP-over-ACP's `acp` transport included). */
export const assertSupportedUnstableMcpServers = assertSupportedMcpServersOf(V2_UNSTABLE_MCP_TRANSPORTS);
