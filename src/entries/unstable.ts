/**
 * acpkit with the unstable additions of ACP v1 (session/fork, providers, NES, document sync, MCP-over-ACP, and
 * the unstable update kinds). Same exports as `acpkit`, typed and validated by the unstable schema: the connection
 * classes here speak the unstable protocol, and `methods` lists the unstable methods too.
 * Unstable features may change in any release; advertise and check capabilities before using them.
 */
import { unstableFlavor } from "../acp/flavors.js";
import { AgentSideConnection as StableAgentSideConnection } from "../agent/agent-side-connection.js";
import { ClientSideConnection as StableClientSideConnection } from "../client/client-side-connection.js";

export * from "../protocol/unstable.js";
export * from "../jsonrpc/index.js";
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES, type NdJsonStreamOptions } from "../transports/ndjson.js";
export { createMemoryPair, type MemoryPairOptions } from "../transports/memory.js";
export { linkFromStream } from "../transports/stream-link.js";
export { AcpConnection, type AcpConnectionOptions } from "../acp/acp-connection.js";
export type { ProtocolFlavor, Side } from "../acp/flavor.js";
export { stableFlavor, unstableFlavor } from "../acp/flavors.js";
export type { Agent } from "../acp/agent-handler.js";
export type { Client } from "../acp/client-handler.js";
export type { ParamsParser } from "../acp/routes.js";
export { TerminalHandle } from "../agent/terminal-handle.js";
export { unstableMethods as methods } from "../acp/methods.js";
export * from "../acp/app-types.js";
export type { AgentConnectOptions, AgentConnectionLifecycle, AgentConnector } from "../acp/agent-connector.js";
export * from "../agent/agent-app.js";
export * from "../client/client-app.js";
// Here `agent()` and `client()` speak the unstable protocol (as the official SDK's unstable entry does).
export { UnstableAgentApp as AgentApp, unstableAgent as agent } from "../agent/agent-app.js";
export { UnstableClientApp as ClientApp, unstableClient as client } from "../client/client-app.js";
export { SessionBuilder, ActiveSession, type ActiveSessionMessage } from "../client/active-session.js";

/** `AgentSideConnection` speaking the unstable protocol: unstable methods are validated and routed. */
export class AgentSideConnection extends StableAgentSideConnection {
  static override flavor = unstableFlavor;
}

/** `ClientSideConnection` speaking the unstable protocol. */
export class ClientSideConnection extends StableClientSideConnection {
  static override flavor = unstableFlavor;
}

// MCP-over-ACP (`mcp/message`): serve MCP servers to the peer, call the peer's.
export * from "../acp/mcp/index.js";
