/**
 * The options and outcome shapes of `AcpServer`: the agent source, acpkit's settings (access, limits, backend, hooks),
 * per-request options, connection stats and events, WebSocket upgrade results.
 */
import type { AgentConnector, AgentFactory } from "../../acp/agent-connector.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { AccessOptions, SocketInfo } from "./access.js";
import type { ServerBackend } from "./backend/backend.js";
import type { AcpHttpBackend } from "./backend/official-backend.js";
import type { ServerLimits } from "./limits.js";
import type { SharedSessionsOptions } from "./shared/session-hub.js";
import type { StdioMcpPolicy } from "./mcp-policy.js";
import type { HeadersInitLike } from "./responses.js";
import type { ConnectionTransport } from "./server-connection.js";
import type { ServerWebSocket } from "./server-websocket.js";

/** Exactly one source of agents: one connector for every connection, or a factory called per connection. */
export type AgentSource =
  | { readonly agent: AgentConnector; readonly createAgent?: never }
  | { readonly agent?: never; readonly createAgent: AgentFactory };

/** What `responseHeaders` is told about a response it may add headers to. */
export interface ResponseHeadersContext {
  readonly request: Request;
  /** The connection the response belongs to (known once `initialize` created it). */
  readonly connectionId: string | undefined;
}

/** What `stats()` tells about one connection. */
export interface ConnectionStats {
  readonly connectionId: string;
  readonly transport: ConnectionTransport;
  /** Whether `initialize` was answered (false while initializing). */
  readonly open: boolean;
  readonly openedAt: number;
  /** How far the client is behind on its output (queued UTF-16 units, or unsent WebSocket bytes). */
  readonly bufferedOutput: number;
  /** Sessions with a prompt turn running. */
  readonly runningPrompts: readonly string[];
}

/** A connection opened (initialized) or closed. */
export type ConnectionEvent =
  | {
      readonly type: "open";
      readonly connectionId: string;
      readonly transport: ConnectionTransport;
      readonly remoteAddress?: string;
    }
  | {
      readonly type: "close";
      readonly connectionId: string;
      readonly transport: ConnectionTransport;
      readonly remoteAddress?: string;
      readonly reason: string;
      readonly error?: unknown;
      readonly durationMs: number;
    };

/** acpkit's server options beside the agent source. */
export interface AcpServerSettings extends ServerLimits, AccessOptions {
  /** The endpoint path; other paths get 404. Default: any path (as the official SDK). */
  readonly path?: string;
  /** A health endpoint for load balancers (GET/HEAD, no auth, no details: 200 "ok", 503 while closing). Default: none. */
  readonly healthPath?: string;
  /**
   * A readiness endpoint for load balancers (GET/HEAD, no auth): 200 "ready", or 503 with the reason while closing or
   * while the backend is not ready (a cluster node cut off from its database, or draining). Default: none.
   */
  readonly readyPath?: string;
  /** A metrics endpoint (GET, behind the token like the ACP endpoint): Prometheus text format. Default: none. */
  readonly metricsPath?: string;
  /** Headers added to every ACP response, the WebSocket 101 included: e.g. `Set-Cookie` for load-balancer affinity. */
  readonly responseHeaders?: (context: ResponseHeadersContext) => HeadersInitLike | undefined;
  /** Hears about connections and refusals. Default: silent. */
  readonly logger?: Logger;
  /** Called when a connection opens (after `initialize`) and when it closes. */
  readonly onConnectionEvent?: (event: ConnectionEvent) => void;
  /**
   * Where Streamable HTTP connections live (registry, routing to the agent, streams): acpkit's backend seam. Default:
   * a `MemoryServerBackend` of this server's own. Servers given the same backend share its connections.
   */
  readonly backend?: ServerBackend;
  /**
   * The official SDK's backend shape (`AcpHttpBackend`, experimental upstream), adapted to acpkit's: the official
   * backend then hosts the agents itself. Give `backend` or `httpBackend`, not both. WebSocket connections never use
   * either (they live on the node holding the socket).
   */
  readonly httpBackend?: AcpHttpBackend;
  /**
   * acpkit: shared sessions (several clients on one live session: `session/attach`, `session/detach`, controllers
   * and observers, read-only share tokens, `GET <path>/sessions`). `true` for the defaults. Default: off (the
   * official server has none). See docs/shared-sessions.md.
   */
  readonly sharedSessions?: boolean | (SharedSessionsOptions & { readonly listPath?: string });
  /**
   * Whether `session/new` (and load, resume, fork) may name stdio MCP servers, commands the agent runs on this
   * machine: `"refuse"` answers those requests -32602 before they reach the agent. Default `"allow"` (`listenAcp`:
   * `"refuse"` unless bound to loopback).
   */
  readonly stdioMcpServers?: StdioMcpPolicy;
}

/** Options of `AcpServer`: the official shape (agent source and `ConnectionLimits`) plus acpkit's settings. */
export type AcpServerOptions = AgentSource & AcpServerSettings;

/** Per-request options: the official per-request agent override, and what the adapter knows of the socket. */
export type HandleRequestOptions = (
  | { readonly agent?: AgentConnector; readonly createAgent?: never }
  | { readonly agent?: never; readonly createAgent?: AgentFactory }
) & {
  readonly socket?: SocketInfo;
  /**
   * acpkit: called once the request passed the access checks (Host, Origin, token), before its body is read: the
   * Node adapter takes its socket out of the unauthenticated ledger then.
   */
  readonly onAccessGranted?: () => void;
};
export type PrepareWebSocketUpgradeOptions = HandleRequestOptions;

/** A WebSocket connection created before the HTTP upgrade is accepted, so the 101 can carry its id. */
export interface PreparedWebSocketUpgrade {
  readonly connectionId: string;
  accept(socket: ServerWebSocket): void;
  reject(): void;
}

/** The outcome of `checkWebSocketUpgrade`: the subprotocol to select and headers for the 101, or the refusal. */
export type WebSocketUpgradeCheck =
  | {
      ok: true;
      protocol: string | undefined;
      headers: Headers;
      /** The agent to give `prepareWebSocketUpgrade` (a share token's observer-only agent), when not the server's. */
      agent?: AgentConnector;
    }
  | { ok: false; response: Response };
