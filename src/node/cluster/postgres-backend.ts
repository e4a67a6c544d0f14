/**
 * `PostgresServerBackend`: the shared state of a cluster of `AcpServer` nodes in PostgreSQL, so that any request of
 * a Streamable HTTP connection may reach any node. Each server that binds it is one node (`ClusterNode`); one
 * backend object may serve several servers of one process, and separate processes share the same database. The
 * schema is migrated at `open` (versioned, under an advisory lock); nodes are woken by LISTEN/NOTIFY on one channel.
 *
 * ```ts
 * const backend = await PostgresServerBackend.open({ database: process.env.DATABASE_URL!, connector: agent });
 * const server = await listenAcp({ agent, backend, token });
 * ```
 */
import type { AgentConnector } from "../../acp/agent-connector.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { NodeBackend, ServerBackend, ServerNode } from "../../remote/server/backend/backend.js";
import { listenPostgres, type PostgresListener } from "../postgres/listener.js";
import { migrate } from "../postgres/migrations.js";
import { createPostgresPool, type PostgresOptions, type PostgresPool } from "../postgres/pool.js";
import { ClusterNode } from "./cluster-node.js";
import { DEFAULT_LEASE_MS, DEFAULT_RETAIN_ENDED_MS, type ClusterSettings } from "./cluster-settings.js";
import { Heartbeat } from "./heartbeat.js";
import { newNodeId } from "./ids.js";
import { CLUSTER_CHANNEL, CLUSTER_MIGRATIONS } from "./schema.js";

/** Options of `PostgresServerBackend.open`. */
export interface PostgresServerBackendOptions {
  /** The database: a connection string, pool options, or an open pool (not ended by `close`). */
  readonly database: string | PostgresOptions | PostgresPool;
  /**
   * The agent a node starts when it adopts a connection whose node died. Without it, nodes adopt nothing (the
   * connections of a dead node end when their lease expires... never: give it).
   */
  readonly connector?: AgentConnector;
  /**
   * How long a node's hold on its connections lasts without renewal (renewed every quarter of it): a dead node's
   * connections are adopted between one and 1.25 leases after its last renewal. Default 5000 ms.
   */
  readonly leaseMs?: number;
  /** How long ended connections (and their events, for late resumption) are kept. Default 60,000 ms. */
  readonly retainEndedMs?: number;
  /** Put before each node's random id, for logs and metrics. */
  readonly nodeName?: string;
  /** Diagnostics of the pool (when the backend opens it). */
  readonly logger?: Logger;
}

/** A server backend whose state is in PostgreSQL: the servers that bind it are the nodes of one cluster. */
export class PostgresServerBackend implements ServerBackend {
  readonly #pool: PostgresPool;
  readonly #control: PostgresPool;
  readonly #ownsPool: boolean;
  readonly #settings: ClusterSettings;
  readonly #nodes = new Map<ClusterNode, Heartbeat>();
  #listener: PostgresListener | undefined;

  private constructor(pool: PostgresPool, control: PostgresPool, ownsPool: boolean, settings: ClusterSettings) {
    this.#pool = pool;
    this.#control = control;
    this.#ownsPool = ownsPool;
    this.#settings = settings;
  }

  /** Opens the pool (unless given), migrates the schema, and listens for wake-ups. */
  static async open(options: PostgresServerBackendOptions): Promise<PostgresServerBackend> {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isFinite(leaseMs) || leaseMs < 200)
      throw new RangeError(`leaseMs must be a number of milliseconds, 200 or more; got ${leaseMs}`);
    const given = typeof options.database === "object" && "query" in options.database;
    const pool = given
      ? (options.database as PostgresPool)
      : await createPostgresPool(
          typeof options.database === "string"
            ? { connectionString: options.database, max: 20, ...(options.logger ? { logger: options.logger } : {}) }
            : { max: 20, ...(options.database as PostgresOptions) },
        );
    // The heartbeats' own pool (when the backend opens its pools): renewals never queue behind bulk writes, and its
    // connections are kept (idleTimeoutMs 0): a renewal never waits for a new connection, which on a loaded database
    // server took seconds (and a lease is a few of them).
    const control = given
      ? pool
      : await createPostgresPool(
          typeof options.database === "string"
            ? {
                connectionString: options.database,
                max: 3,
                idleTimeoutMs: 0,
                ...(options.logger ? { logger: options.logger } : {}),
              }
            : { ...(options.database as PostgresOptions), max: 3, idleTimeoutMs: 0 },
        );
    const backend = new PostgresServerBackend(pool, control, !given, {
      leaseMs,
      heartbeatMs: Math.max(50, Math.floor(leaseMs / 4)),
      retainEndedMs: options.retainEndedMs ?? DEFAULT_RETAIN_ENDED_MS,
      connector: options.connector,
      nodeName: options.nodeName,
      onNodeClosed: (node) => void backend.#nodeClosed(node),
    });
    try {
      await migrate(pool, { sets: [CLUSTER_MIGRATIONS] });
      backend.#listener = await listenPostgres(pool, {
        channels: [CLUSTER_CHANNEL],
        onNotification: (_channel, payload) => {
          for (const node of backend.#nodes.keys()) node.notified(payload);
        },
        // Notifications may have been missed while the listener was away: readers look again, heartbeats take inboxes.
        onResync: () => {
          for (const [node, heartbeat] of backend.#nodes) {
            for (const connectionId of node.readers.keys()) node.wakeReaders(connectionId);
            void node.relay?.take();
            void heartbeat.beat();
          }
        },
      });
    } catch (error) {
      if (!given) await Promise.all([pool.end(), control.end()]);
      throw error;
    }
    return backend;
  }

  /** The pool the nodes use. */
  get pool(): PostgresPool {
    return this.#pool;
  }

  /** Makes `server` a node of the cluster (called by `AcpServer`); its heartbeat starts. */
  bind(server: ServerNode): NodeBackend {
    const node = new ClusterNode(
      newNodeId(this.#settings.nodeName),
      this.#pool,
      this.#control,
      server,
      this.#settings,
      () => this.#listener?.connected ?? false,
    );
    const heartbeat = new Heartbeat(node);
    this.#nodes.set(node, heartbeat);
    heartbeat.start();
    return node;
  }

  /**
   * Drains the nodes of this process (SIGTERM): they report not ready (the balancer takes them out), adopt nothing,
   * and running turns get up to `timeoutMs` to finish; closing the servers afterwards hands each connection over (its
   * lease lapses at once, and another node adopts it). Resolves when the turns finished or the time is up.
   */
  async drain(timeoutMs: number): Promise<void> {
    const hosts = [...this.#nodes.keys()].flatMap((node) => {
      node.handOver = true;
      return [...node.hosted.values()].map((hosted) => hosted.host);
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(hosts.map((host) => host.promptsSettled())),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  /** Runs a heartbeat of every node now (tests). */
  async beat(): Promise<void> {
    await Promise.all([...this.#nodes.values()].map((heartbeat) => heartbeat.beat()));
  }

  async #nodeClosed(node: ClusterNode): Promise<void> {
    const heartbeat = this.#nodes.get(node);
    this.#nodes.delete(node);
    await heartbeat?.stop();
  }

  /** Stops listening and closes the pool (when the backend opened it). Close the servers first. */
  async close(): Promise<void> {
    await Promise.all([...this.#nodes.values()].map((heartbeat) => heartbeat.stop()));
    await this.#listener?.close();
    if (this.#ownsPool) await Promise.all([this.#pool.end(), this.#control.end()]);
  }
}
