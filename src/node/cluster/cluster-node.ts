/**
 * One node (one `AcpServer`) of a cluster on PostgreSQL: the `NodeBackend` the server talks to. It hosts the agents
 * of the connections it owns (their output written by `OwnerSink`s, their inbox taken when notified), finds any
 * connection in the database for a request, serves streams from the database, and ends connections anywhere
 * (`x:<connection id>` tells the owner). Its lease renewals, idleness checks, adoptions and sweeping run in
 * `heartbeat.ts`.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import { METHODS } from "../../remote/http-protocol.js";
import type {
  BackendConnection,
  BackendInitializeInput,
  BackendInitializeResult,
  NodeBackend,
  Refusal,
  ServerNode,
} from "../../remote/server/backend/backend.js";
import { ServerBackendError } from "../../remote/server/backend/backend.js";
import type { ResolvedLimits } from "../../remote/server/limits.js";
import type { ConnectionEnd, ServerConnection } from "../../remote/server/server-connection.js";
import type { PostgresPool } from "../postgres/pool.js";
import { ClusterConnection, databaseDown } from "./cluster-connection.js";
import { recordConnectionEnd } from "./connection-end.js";
import type { ClusterSettings } from "./cluster-settings.js";
import { EventWriter } from "./event-writer.js";
import { newConnectionId, plausibleConnectionId } from "./ids.js";
import { InboxWriter, takeInboxOf } from "./inbox.js";
import { ClusterMetrics } from "./metrics.js";
import { nodeMetrics, nodeReadiness } from "./node-status.js";
import { OwnerSink } from "./owner-sink.js";
import { CLUSTER_CHANNEL, CONNECTIONS } from "./schema.js";
import type { ClusterStreamReader, ReaderHost } from "./stream-reader.js";
import type { RelayEndpoint, SessionRelay } from "../../remote/server/shared/session-relay.js";
import { ClusterSharedRelay } from "./shared-relay.js";
import { QueryLimiter } from "./query-limiter.js";
import { shareGrantOf } from "../../remote/server/shared/observer-agent.js";

/** Methods whose answer opens a session on the connection. */
/** Stream readers' queries in flight at most per node (see `readerQueries`). */
const READER_QUERIES = 5;
const OPENING = new Set(["session/new", "session/load", "session/resume", "session/fork"]);

/** A connection whose agent runs on this node. */
export interface Hosted {
  readonly connectionId: string;
  readonly host: ServerConnection;
  readonly sink: OwnerSink;
  /** The lease token this node holds it under. */
  readonly token: number;
  /** Lost its lease: the agent is being stopped and nothing more is written. */
  fenced: boolean;
  /** Being adopted: its initialize and sessions are replayed; client messages wait in the inbox meanwhile. */
  adopting: boolean;
  /** Taking the inbox now; `again`: take it once more after. */
  taking: boolean;
  again: boolean;
}

export class ClusterNode implements NodeBackend, ReaderHost {
  readonly hosted = new Map<string, Hosted>();
  readonly readers = new Map<string, Set<ClusterStreamReader>>();
  /** Connections used through this node since the last heartbeat (their `last_active_at` is bumped). */
  readonly touched = new Set<string>();
  /** Connections whose row is written and whose host is not registered yet (the heartbeat leaves them be). */
  readonly initializing = new Set<string>();
  /** Connections no longer hosted whose end (or hand-over) is being written (the heartbeat leaves them be). */
  readonly ending = new Set<string>();
  readonly writer: EventWriter;
  readonly inbox: InboxWriter;
  readonly counters = new ClusterMetrics();
  /** A quarter of the main pool (20) at most for the stream readers: the owners' writes keep the rest. */
  readonly readerQueries = new QueryLimiter(READER_QUERIES);
  readonly gone: Refusal = {
    status: 404,
    message:
      "Not Found: unknown Acp-Connection-Id (it ended, or never existed); POST initialize to start a new connection",
  };
  #requestIds = 0;
  #closed = false;
  /** Ends being recorded in the database (`close` waits for them). */
  readonly #ending = new Set<Promise<void>>();
  #markRegistered!: () => void;
  /** Resolves once the node's row is in the database (its first heartbeat): its connections are then alive. */
  readonly registered = new Promise<void>((resolve) => (this.#markRegistered = resolve));
  /** Set when the node hands its connections over on close (drain) instead of ending them. */
  handOver = false;
  /** Shared sessions across the nodes (when the server shares sessions). */
  relay: ClusterSharedRelay | undefined;

  constructor(
    readonly nodeId: string,
    readonly pool: PostgresPool,
    /** A small pool of the node's own for its heartbeat: renewal never waits behind the agents' output. */
    readonly control: PostgresPool,
    readonly server: ServerNode,
    readonly settings: ClusterSettings,
    /** Whether the backend's LISTEN connection is up. */
    private readonly listening: () => boolean,
  ) {
    this.writer = new EventWriter({ pool, nodeId, onFenced: (ids) => ids.forEach((id) => this.fence(id)) });
    this.inbox = new InboxWriter(pool);
  }

  get limits(): ResolvedLimits {
    return this.server.limits;
  }

  get logger(): Logger {
    return this.server.logger;
  }

  get readerLeaseMs(): number {
    return this.settings.leaseMs * 2;
  }

  get deadAfterMs(): number {
    return this.settings.heartbeatMs * 3;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Unique across the cluster: this node's random id and a counter. */
  readonly serverRequestId = (_connectionId: string): string => `${this.nodeId}-${++this.#requestIds}`;

  /** Called by the heartbeat after each renewal. */
  renewed(): void {
    this.#markRegistered();
  }

  sharedSessions(hub: RelayEndpoint): SessionRelay {
    this.relay = new ClusterSharedRelay(this, hub);
    return this.relay;
  }

  ready(): Promise<string | undefined> {
    return nodeReadiness(this, this.listening());
  }

  metrics(): Promise<string> {
    return nodeMetrics(this, this.listening());
  }

  redact<E>(error: E): E {
    return this.pool.redact(error);
  }

  /** The connection, when this node runs its agent and it is open. */
  local(connectionId: string): Hosted | undefined {
    const hosted = this.hosted.get(connectionId);
    return hosted !== undefined && !hosted.fenced && !hosted.adopting && hosted.host.isOpen ? hosted : undefined;
  }

  attach(reader: ClusterStreamReader): void {
    let set = this.readers.get(reader.connectionId);
    if (set === undefined) this.readers.set(reader.connectionId, (set = new Set()));
    set.add(reader);
    this.counters.streamsOpened++;
  }

  detach(reader: ClusterStreamReader): void {
    const set = this.readers.get(reader.connectionId);
    if (set?.delete(reader) && set.size === 0) this.readers.delete(reader.connectionId);
    this.touched.add(reader.connectionId);
  }

  get openStreams(): number {
    let count = 0;
    for (const set of this.readers.values()) count += set.size;
    return count;
  }

  async initialize(input: BackendInitializeInput): Promise<BackendInitializeResult> {
    const connectionId = newConnectionId();
    const host = this.server.host({
      connector: input.connector,
      connectionId,
      ...(input.remoteAddress === undefined ? {} : { remoteAddress: input.remoteAddress }),
      onEnd: (_host, end) => this.track(this.#ended(connectionId, end)),
    });
    if (typeof host === "string")
      throw new ServerBackendError(503, `Service Unavailable: ${host}`, { headers: { "Retry-After": "5" } });
    this.initializing.add(connectionId);
    try {
      // A connection whose owner has no row yet would look dead to the other nodes.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.registered,
        new Promise((resolve) => (timer = setTimeout(resolve, this.settings.leaseMs))),
      ]);
      clearTimeout(timer);
      await this.pool.query(
        `INSERT INTO ${CONNECTIONS}
           (connection_id, owner_node, lease_token, lease_expires_at, initialize, share_grant, credential)
         VALUES ($1, $2, 1, 'infinity', $3, $4, $5)`,
        [connectionId, this.nodeId, input.text, shareGrantOf(input.connector) ?? null, input.credential ?? null],
      );
    } catch (error) {
      this.initializing.delete(connectionId);
      void host.end({ reason: "initialize failed", error });
      const refusal = databaseDown(this.redact(error));
      throw new ServerBackendError(refusal.status, refusal.message, { headers: refusal.headers ?? {} });
    }
    const hosted = this.#hostConnection(connectionId, host, 1, 0, []);
    this.initializing.delete(connectionId);
    const answer = await host.initialize(input.message, input.text.length, { signal: input.signal });
    if ("error" in answer.message) {
      void host.end({ reason: "initialize refused" });
    } else if (!host.ended && !hosted.fenced) {
      await this.pool.query(`UPDATE ${CONNECTIONS} SET ready = true, initialize_answer = $2 WHERE connection_id = $1`, [
        connectionId,
        answer.text,
      ]);
      this.server.opened(host);
    }
    return { connectionId, text: answer.text };
  }

  /** Starts a host this node got a lease for (a new connection, or an adopted one) with its sink. */
  #hostConnection(
    connectionId: string,
    host: ServerConnection,
    token: number,
    lastEventId: number,
    sessions: readonly string[],
  ): Hosted {
    const sink = new OwnerSink({
      connectionId,
      writer: this.writer,
      limits: this.limits,
      token,
      lastEventId,
      sessions,
      onFailure: (error) => {
        this.logger.error("cluster: the agent's output could not be written; ending the connection", {
          connectionId,
          error: error instanceof Error ? this.redact(error).message : String(error),
        });
        void host.end({ reason: "database unavailable", error });
      },
    });
    const hosted: Hosted = {
      connectionId,
      host,
      sink,
      token,
      fenced: false,
      adopting: false,
      taking: false,
      again: false,
    };
    this.hosted.set(connectionId, hosted);
    host.start(sink);
    // Idleness is decided from the database (activity on every node), not from what this node sees.
    host.requestStarted();
    return hosted;
  }

  /** Adopts a connection whose lease this node took (`adoption.ts` replays its initialize and sessions). */
  hostAdopted(
    connectionId: string,
    host: ServerConnection,
    token: number,
    lastEventId: number,
    sessions: readonly string[],
  ): Hosted {
    return this.#hostConnection(connectionId, host, token, lastEventId, sessions);
  }

  async connection(connectionId: string): Promise<BackendConnection | undefined> {
    if (!plausibleConnectionId(connectionId)) return undefined;
    const started = performance.now();
    const found = await this.pool.query<{ credential: string | null }>(
      `SELECT credential FROM ${CONNECTIONS} WHERE connection_id = $1 AND ended_at IS NULL AND ready`,
      [connectionId],
    );
    this.counters.observeQuery(performance.now() - started);
    if (found.rows.length === 0) return undefined;
    this.touched.add(connectionId);
    return new ClusterConnection(this, connectionId, found.rows[0]!.credential ?? undefined);
  }

  async closeConnection(connectionId: string, end: ConnectionEnd): Promise<boolean> {
    if (!plausibleConnectionId(connectionId)) return false;
    const result = await this.pool.query(
      `WITH ended AS (
         UPDATE ${CONNECTIONS} SET ended_at = now(), end_reason = $2
          WHERE connection_id = $1 AND ended_at IS NULL AND ready RETURNING connection_id)
       SELECT pg_notify('${CLUSTER_CHANNEL}', 'x:' || connection_id) FROM ended`,
      [connectionId, end.reason],
    );
    if (result.rows.length === 0) return false;
    const hosted = this.hosted.get(connectionId);
    if (hosted !== undefined) void hosted.host.end(end);
    this.wakeReaders(connectionId);
    return true;
  }

  /** A client request or notification reaches the agent here (directly, or taken from the inbox). */
  /**
   * `recorded`: taken from the inbox, whose take wrote the prompt's row. `prompt`, when given, gets the promise of a
   * prompt's row (resolved once committed).
   */
  forwardCall(
    hosted: Hosted,
    message: Record<string, unknown>,
    chars: number,
    sessionId: string | undefined,
    options: { recorded?: boolean; prompt?: (written: Promise<void>) => void } = {},
  ): Refusal | undefined {
    const refusal = hosted.host.forwardCall(message, chars, sessionId);
    if (refusal !== undefined || !("id" in message)) return refusal;
    const method = message.method;
    if (method === METHODS.session_prompt && sessionId !== undefined)
      options.prompt?.(hosted.sink.promptStarted(message.id, sessionId, options.recorded === true));
    else if (typeof method === "string" && OPENING.has(method) && typeof message.params === "object")
      hosted.sink.sessionRequested(message.id, message.params as Record<string, unknown>);
    return refusal;
  }

  /** `i:`: takes the connection's inbox (one taker at a time, once more if woken meanwhile). */
  takeInbox(hosted: Hosted): Promise<void> {
    return takeInboxOf(this, hosted);
  }

  /** A notification on the cluster channel. */
  notified(payload: string): void {
    const connectionId = payload.slice(2);
    const kind = payload.slice(0, 2);
    if (kind === "i:") {
      const hosted = this.hosted.get(connectionId);
      if (hosted !== undefined && !hosted.fenced) void this.takeInbox(hosted);
    } else if (kind === "e:") {
      // `e:<connection id> <stream>` (connection ids have no space): that stream's reader only.
      const space = connectionId.indexOf(" ");
      if (space === -1) this.wakeReaders(connectionId);
      else this.wakeReaders(connectionId.slice(0, space), connectionId.slice(space + 1));
    } else if (kind === "r:") {
      if (connectionId === this.nodeId) void this.relay?.take();
    } else if (kind === "x:") {
      this.wakeReaders(connectionId);
      const hosted = this.hosted.get(connectionId);
      if (hosted !== undefined) void hosted.host.end({ reason: "deleted" });
    }
  }

  /** Wakes the readers of the connection (of one of its streams: `stream`, "" for the connection stream). */
  wakeReaders(connectionId: string, stream?: string): void {
    for (const reader of this.readers.get(connectionId) ?? [])
      if (stream === undefined || reader.stream === stream) reader.wake();
  }

  /** Another node holds the connection's lease now: stop the agent here and write nothing more for it. */
  fence(connectionId: string): void {
    const hosted = this.hosted.get(connectionId);
    if (hosted === undefined || hosted.fenced) return;
    hosted.fenced = true;
    this.counters.fenced++;
    this.logger.warn("cluster: this node lost a connection's lease; stopping its agent here", { connectionId });
    hosted.sink.abort();
    void hosted.host.end({ reason: "lease lost" });
  }

  /** Work in flight that `close` waits for (ends being recorded, adoptions). */
  track(ending: Promise<void>): void {
    this.#ending.add(ending);
    void ending.finally(() => this.#ending.delete(ending));
  }

  /** `ServerNode.host`'s `onEnd` for a connection hosted here. */
  readonly onHostEnd = (connectionId: string, end: ConnectionEnd): void => this.track(this.#ended(connectionId, end));

  /** A hosted connection ended: recorded in the database (unless fenced: another node holds it now). */
  async #ended(connectionId: string, end: ConnectionEnd): Promise<void> {
    const hosted = this.hosted.get(connectionId);
    if (hosted === undefined) return;
    this.ending.add(connectionId);
    this.hosted.delete(connectionId);
    // (It never rejects: a failed write is logged, and the lease expires instead.)
    if (!hosted.fenced) await recordConnectionEnd(this, hosted, end);
    this.ending.delete(connectionId);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Handing over: the streams are left to break with the server (their clients resume elsewhere), not ended.
    for (const set of this.readers.values())
      for (const reader of [...set])
        if (this.handOver) reader.abandon();
        else reader.release();
    await Promise.all([...this.#ending]);
    await this.relay?.close();
    await this.writer.close();
    await this.inbox.close();
    this.settings.onNodeClosed?.(this);
  }
}
