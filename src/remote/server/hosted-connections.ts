import type { AgentConnector } from "../../acp/agent-connector.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { ResolvedLimits } from "./limits.js";
import { ServerConnection, type ConnectionEnd, type ConnectionTransport } from "./server-connection.js";
import type { AcpServerSettings, ConnectionStats } from "./server-options.js";
import { shareGrantOf } from "./shared/observer-agent.js";
import type { SessionHub } from "./shared/session-hub.js";

/** What a hosted connection may be opened with besides its transport and agent (a backend's connections). */
export interface HostingExtras {
  connectionId?: string;
  serverRequestId?: (connectionId: string) => string | number;
  onEnd?: (connection: ServerConnection, end: ConnectionEnd) => void;
}

/** What the connections of a server share: its settings, limits, logger, shared sessions and closing state. */
export interface HostingServer {
  readonly settings: AcpServerSettings;
  readonly limits: ResolvedLimits;
  readonly logger: Logger;
  readonly hub: SessionHub | undefined;
  closing(): boolean;
}

/**
 * The connections one `AcpServer` hosts: opened within `maxConnections` (none once the server is closing), logged
 * and reported to `onConnectionEvent` when their `initialize` succeeded (`register`) and when they end, and listed
 * for monitoring.
 */
export class HostedConnections {
  readonly #server: HostingServer;
  /** Connections not yet ended. */
  readonly #all = new Set<ServerConnection>();
  /** Connections whose `initialize` succeeded (their end is reported). */
  readonly #open = new Set<ServerConnection>();
  readonly #remote = new WeakMap<ServerConnection, string | undefined>();

  constructor(server: HostingServer) {
    this.#server = server;
  }

  /** Connections not yet ended (HTTP and WebSocket, initializing or open). */
  get size(): number {
    return this.#all.size;
  }

  /** The connections not yet ended, as they are now. */
  list(): ServerConnection[] {
    return [...this.#all];
  }

  /** A snapshot of every connection not yet ended: for monitoring. */
  stats(): ConnectionStats[] {
    return this.list().map((connection) => ({
      connectionId: connection.id,
      transport: connection.transport,
      open: connection.isOpen,
      openedAt: connection.openedAt,
      bufferedOutput: connection.output?.bufferedAmount ?? 0,
      runningPrompts: connection.runningPrompts,
    }));
  }

  /** Why no connection can be opened now (closing, or full), or undefined. */
  capacityProblem(): string | undefined {
    if (this.#server.closing()) return "the server is shutting down";
    if (this.#all.size >= this.#server.limits.maxConnections)
      return `the server has ${this.#all.size} connections, its maximum (maxConnections); retry later`;
    return undefined;
  }

  /** Opens a connection hosting `connector`'s agent, or returns why it cannot (logged as a refusal). */
  open(
    transport: ConnectionTransport,
    connector: AgentConnector,
    remoteAddress?: string,
    extras: HostingExtras = {},
  ): ServerConnection | string {
    const { settings, limits, logger, hub } = this.#server;
    const problem = this.capacityProblem();
    if (problem) {
      logger.warn("refusing a remote connection", { reason: problem });
      return problem;
    }
    const { connectionId, serverRequestId, onEnd } = extras;
    const shareGrant = shareGrantOf(connector);
    const connection: ServerConnection = new ServerConnection({
      transport,
      connector,
      limits,
      logger,
      ...(hub === undefined ? {} : { hub }),
      ...(shareGrant === undefined ? {} : { shareGrant }),
      ...(settings.stdioMcpServers === undefined ? {} : { stdioMcpServers: settings.stdioMcpServers }),
      ...(connectionId === undefined ? {} : { connectionId }),
      ...(serverRequestId === undefined ? {} : { serverRequestId: () => serverRequestId(connection.id) }),
      onEnd: (ended, end) => {
        this.#ended(ended, end);
        onEnd?.(ended, end);
      },
    });
    this.#all.add(connection);
    this.#remote.set(connection, remoteAddress);
    return connection;
  }

  /** The connection's `initialize` succeeded: it is open (logged, reported), unless it already ended. */
  register(connection: ServerConnection): void {
    if (connection.ended) return;
    this.#open.add(connection);
    const remoteAddress = this.#remote.get(connection);
    this.#server.logger.info("remote connection opened", {
      connectionId: connection.id,
      transport: connection.transport,
      remoteAddress,
    });
    this.#server.settings.onConnectionEvent?.({
      type: "open",
      connectionId: connection.id,
      transport: connection.transport,
      ...(remoteAddress ? { remoteAddress } : {}),
    });
  }

  #ended(connection: ServerConnection, end: ConnectionEnd): void {
    this.#all.delete(connection);
    const wasOpen = this.#open.delete(connection);
    if (!wasOpen) return;
    const remoteAddress = this.#remote.get(connection);
    const durationMs = Date.now() - connection.openedAt;
    this.#server.logger.info("remote connection closed", {
      connectionId: connection.id,
      transport: connection.transport,
      reason: end.reason,
      durationMs,
    });
    this.#server.settings.onConnectionEvent?.({
      type: "close",
      connectionId: connection.id,
      transport: connection.transport,
      ...(remoteAddress ? { remoteAddress } : {}),
      reason: end.reason,
      ...(end.error === undefined ? {} : { error: end.error }),
      durationMs,
    });
  }
}
