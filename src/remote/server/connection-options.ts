/**
 * The shapes a server connection is made with and reports: its transport, why it ended, what it needs from its
 * server; and the WebSocket close code of an end.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import type { AgentConnector } from "../../acp/agent-connector.js";
import type { InitializeFailure } from "./errors.js";
import type { ResolvedLimits } from "./limits.js";
import type { StdioMcpPolicy } from "./mcp-policy.js";
import type { SessionHub } from "./shared/session-hub.js";
import type { ServerConnection } from "./server-connection.js";

export type ConnectionTransport = "http" | "websocket";

/** Why a connection ended. */
export interface ConnectionEnd {
  /** "deleted", "idle", "socket closed", "agent ended", "limit", "server closing", "initialize failed", ... */
  readonly reason: string;
  readonly error?: unknown;
}

/** What a connection needs from its server. */
export interface ServerConnectionOptions {
  readonly transport: ConnectionTransport;
  readonly connector: AgentConnector;
  readonly limits: ResolvedLimits;
  readonly logger: Logger;
  /** The connection's id: given when a node adopts a connection; otherwise a new random one. */
  readonly connectionId?: string;
  /**
   * The id the client sees on each request the agent sends it; the client's answer is given back to the agent with
   * the agent's own id. Absent: the agent's ids go through unchanged.
   */
  readonly serverRequestId?: () => string | number;
  /**
   * Whether a request naming stdio MCP servers reaches the agent (`"refuse"`: answered -32602 here). Default
   * `"allow"`.
   */
  readonly stdioMcpServers?: StdioMcpPolicy;
  /** The server's shared sessions (absent: sharing is off; every message goes straight to the agent). */
  readonly hub?: SessionHub;
  /** The session this connection may only observe (it was opened with that session's share token). */
  readonly shareGrant?: string;
  /** Called once when the connection ends (the server forgets it and reports it). */
  onEnd(connection: ServerConnection, end: ConnectionEnd): void;
}

export interface PendingRequest {
  readonly method: string;
  readonly sessionId: string | undefined;
}

export interface InitializeWaiter {
  readonly key: string | undefined;
  readonly request: Record<string, unknown>;
  /** Route the answer to the output too (WebSocket: it must keep its place among the agent's messages). */
  readonly passThrough: boolean;
  resolve(answer: { message: Record<string, unknown>; text: string }): void;
  reject(error: InitializeFailure): void;
}

/**
 * The WebSocket close code for an end: 1008 for a broken limit or policy, 1002 for a protocol error, 1011 for a
 * failure.
 */
export function closeCodeOf(end: ConnectionEnd): number {
  if (end.reason === "limit") return 1008;
  if (end.reason === "protocol error") return 1002;
  return end.error === undefined ? 1000 : 1011;
}
