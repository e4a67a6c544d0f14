/**
 * What the HTTP handlers and WebSocket sessions need from the server that owns them: its limits and logger, and
 * its connection registry.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import type { AgentConnector } from "../../acp/agent-connector.js";
import type { ResolvedLimits } from "./limits.js";
import type { StdioMcpPolicy } from "./mcp-policy.js";
import type { BodyBudget } from "./request-body.js";
import type { ConnectionTransport, ServerConnection } from "./server-connection.js";

export interface ServerContext {
  readonly limits: ResolvedLimits;
  readonly logger: Logger;
  /** The bytes of POST bodies being read, all requests together (`maxBufferedRequestBytes`). */
  readonly bodyBudget: BodyBudget;
  /** Whether client-named stdio MCP servers reach the agent. */
  readonly stdioMcpServers: StdioMcpPolicy;
  /** A new connection (counted against `maxConnections` until it ends), or the reason it cannot be opened (503). */
  openConnection(
    transport: ConnectionTransport,
    connector: AgentConnector,
    remoteAddress?: string,
  ): ServerConnection | string;
  /** Makes an initialized connection reachable by its id, and reports it opened. */
  register(connection: ServerConnection): void;
  /** An open HTTP connection by `Acp-Connection-Id`. */
  find(connectionId: string): ServerConnection | undefined;
}

/** A refusal for a client message: the status an HTTP client gets and why. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
}
