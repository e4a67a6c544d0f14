/**
 * What the HTTP handlers and WebSocket sessions need from the server that owns them: its limits and logger, its
 * backend (Streamable HTTP connections), and how it hosts WebSocket connections (always on the node holding the
 * socket).
 */
import type { Logger } from "../../jsonrpc/logger.js";
import type { AgentConnector } from "../../acp/agent-connector.js";
import type { NodeBackend } from "./backend/backend.js";
import type { ResolvedLimits } from "./limits.js";
import type { BodyBudget } from "./request-body.js";
import type { ConnectionTransport, ServerConnection } from "./server-connection.js";

export type { Refusal } from "./backend/backend.js";

export interface ServerContext {
  readonly limits: ResolvedLimits;
  readonly logger: Logger;
  /** Where Streamable HTTP connections live. */
  readonly backend: NodeBackend;
  /** The bytes of POST bodies being read, all requests together (`maxBufferedRequestBytes`). */
  readonly bodyBudget: BodyBudget;
  /** A new connection (counted against `maxConnections` until it ends), or the reason it cannot be opened (503). */
  openConnection(
    transport: ConnectionTransport,
    connector: AgentConnector,
    remoteAddress?: string,
  ): ServerConnection | string;
  /** Reports an initialized connection opened. */
  register(connection: ServerConnection): void;
}
