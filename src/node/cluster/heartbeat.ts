/**
 * A node's heartbeat, every quarter of the lease. The lease is the node's: one row per node (`seen_at`), renewed on a
 * timer of its own and on a small pool of its own, so that renewal never waits behind the agents' output (nor its row
 * locks) nor behind the checks below; a connection's lease is valid while its owner node's is (and until a drained
 * node lets it lapse). On another timer the node checks the connections it hosts (one it no longer owns is fenced; one
 * ended elsewhere, or idle for `idleTimeoutMs` on every node, is ended; one with messages a notification may have
 * missed has its inbox taken), bumps `last_active_at` of the connections used through it, renews its readers' claims
 * (a reader whose stream was taken over ends), adopts the connections of dead nodes, and now and then sweeps ended
 * connections. A node that could not renew for a whole lease stops its agents: another node may hold them by now.
 */
import { adoptExpired } from "./adoption.js";
import type { ClusterNode } from "./cluster-node.js";
import { CONNECTIONS, INBOX, NODES, STREAMS } from "./schema.js";
import { SWEEP } from "./sweep.js";

const RENEW = `INSERT INTO ${NODES} (node_id) VALUES ($1) ON CONFLICT (node_id) DO UPDATE SET seen_at = now(), draining = $2`;

/**
 * The rows of the connections this node hosts or owns: read only (no lock on rows the owner's writes share). Idle: no
 * request for the idle timeout, and no stream read anywhere (a live reader claim; `last_active_at` is bumped by an
 * UPDATE that waits for the owners' writes, and under load it came too late: live connections were ended as idle).
 */
const CHECK = `
SELECT connection_id, owner_node, lease_token, ended_at IS NOT NULL AS ended,
       lease_expires_at < now() AND lease_expires_at > now() - $4 * interval '1 millisecond' AS lapsed,
       last_active_at < now() - $3 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM ${STREAMS} s WHERE s.connection_id = c.connection_id
                            AND s.reader IS NOT NULL AND s.reader_expires_at > now()) AS idle,
       EXISTS (SELECT 1 FROM ${INBOX} i WHERE i.connection_id = c.connection_id) AS inbox
  FROM ${CONNECTIONS} c
 WHERE connection_id = ANY($2::text[]) OR (owner_node = $1 AND ended_at IS NULL)`;

/** Leases a lapsed row naming this node is left for another node to adopt before this node ends it. */
const LAPSED_LEASES = 3;

const TOUCH = `UPDATE ${CONNECTIONS} SET last_active_at = now() WHERE connection_id = ANY($1::text[]) AND ended_at IS NULL`;

const RENEW_READERS = `
UPDATE ${STREAMS} s
   SET reader_expires_at = now() + $5 * interval '1 millisecond', taken = GREATEST(s.taken, v.taken)
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS v(connection_id, stream, reader, taken)
 WHERE s.connection_id = v.connection_id AND s.stream = v.stream AND s.reader = v.reader
RETURNING s.reader`;

export class Heartbeat {
  #renewTimer: ReturnType<typeof setTimeout> | undefined;
  #checkTimer: ReturnType<typeof setTimeout> | undefined;
  #beats = 0;
  #lastRenewed = performance.now();
  #renewing: Promise<void> | undefined;
  #running: Promise<void> | undefined;
  #checking: Promise<void> | undefined;
  #touching: Promise<unknown> | undefined;
  #stopped = false;
  /** Whether the last renewal reached the database. */
  healthy = false;

  constructor(private readonly node: ClusterNode) {}

  /**
   * Renewal and the checks run on timers of their own: the renewal every quarter of the lease whatever the checks
   * take (a beat that waited for them renewed only after its adoptions, inbox and reader queries had run, and under
   * load that was longer than a lease: the other nodes took a live node for dead and adopted its connections).
   */
  start(): void {
    this.#scheduleRenewal(0);
    this.#scheduleChecks(0);
  }

  /** Renews now, then runs the checks (tests, a missed notification, the start). */
  beat(): Promise<void> {
    this.#running ??= this.renew()
      .then(() => this.#check())
      .finally(() => (this.#running = undefined));
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#renewTimer !== undefined) clearTimeout(this.#renewTimer);
    if (this.#checkTimer !== undefined) clearTimeout(this.#checkTimer);
    await Promise.all([this.#running, this.#renewing, this.#checking, this.#touching]);
  }

  /** Every quarter of the lease from the start of the last renewal (one at a time). */
  #scheduleRenewal(ms: number): void {
    if (this.#stopped) return;
    const due = performance.now() + ms;
    this.#renewTimer = setTimeout(() => {
      const started = performance.now();
      this.node.counters.observeRenewalDelay(started - due);
      void this.renew().finally(() =>
        this.#scheduleRenewal(Math.max(0, this.node.settings.heartbeatMs - (performance.now() - started))),
      );
    }, ms);
    this.#renewTimer.unref?.();
  }

  #scheduleChecks(ms: number): void {
    if (this.#stopped) return;
    this.#checkTimer = setTimeout(() => {
      void this.#check().finally(() => this.#scheduleChecks(this.node.settings.heartbeatMs));
    }, ms);
    this.#checkTimer.unref?.();
  }

  /**
   * Renews this node's row (its lease on its connections). A node stops its agents (the other nodes may hold them by
   * now) when a renewal failed and the last one that succeeded was sent a whole lease ago (the database is out of
   * reach), or when a renewal has hung for two leases (a database that never answers). A renewal that is merely slow
   * (a loaded database answers everything late) stops nothing: the other nodes adopt only while their own renewals
   * are on time, and every write is fenced by the lease token anyway.
   */
  renew(): Promise<void> {
    const node = this.node;
    if (this.#renewing !== undefined) return this.#renewing;
    const started = performance.now();
    this.#renewing = node.control
      .query(RENEW, [node.nodeId, node.handOver])
      .then(
        () => {
          this.#lastRenewed = started;
          node.renewed();
          node.counters.lastHeartbeatMs = performance.now() - started;
          this.healthy = true;
        },
        (error: unknown) => {
          this.healthy = false;
          node.counters.heartbeatFailures++;
          node.logger.warn("cluster: heartbeat failed (the database is unreachable?)", {
            error: error instanceof Error ? node.redact(error).message : String(error),
          });
          this.#overdue(node.settings.leaseMs);
        },
      )
      .finally(() => (this.#renewing = undefined));
    const watch = setInterval(() => this.#overdue(2 * node.settings.leaseMs), node.settings.heartbeatMs);
    watch.unref?.();
    void this.#renewing.finally(() => clearInterval(watch));
    return this.#renewing;
  }

  /** No successful renewal sent within `ms`: this node's agents are stopped. */
  #overdue(ms: number): void {
    const node = this.node;
    if (performance.now() - this.#lastRenewed <= ms || node.hosted.size === 0) return;
    const agents = [...node.hosted.values()].filter((hosted) => !hosted.fenced);
    if (agents.length === 0) return;
    node.logger.error("cluster: no lease renewal for too long; stopping this node's agents", {
      agents: agents.length,
      sinceLastRenewalMs: Math.round(performance.now() - this.#lastRenewed),
    });
    for (const hosted of agents) node.fence(hosted.connectionId);
  }

  /**
   * The checks (one run at a time): the connections this node hosts (moved: fenced; ended or idle: ended; inbox:
   * taken), its readers' claims, adoption (only while this node's own renewals succeed), `last_active_at`, the relay,
   * the sweep.
   */
  #check(): Promise<void> {
    this.#checking ??= this.#runChecks().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #runChecks(): Promise<void> {
    const node = this.node;
    const { control, nodeId, settings } = node;
    try {
      const hostedIds = [...node.hosted.keys()];
      const checked = await control.query<{
        connection_id: string;
        owner_node: string;
        lease_token: string;
        ended: boolean;
        lapsed: boolean;
        idle: boolean;
        inbox: boolean;
      }>(CHECK, [nodeId, hostedIds, node.limits.idleTimeoutMs, LAPSED_LEASES * settings.leaseMs]);
      const rows = new Map(checked.rows.map((row) => [row.connection_id, row]));
      for (const hosted of [...node.hosted.values()]) {
        const row = rows.get(hosted.connectionId);
        if (hosted.fenced || !hosted.host.isOpen) continue;
        if (row === undefined || row.ended) void hosted.host.end({ reason: "deleted" });
        else if (row.owner_node !== nodeId || Number(row.lease_token) !== hosted.token) node.fence(hosted.connectionId);
        else if (row.idle) {
          node.logger.info(
            "cluster: closing an idle connection: no request or stream on any node for the idle timeout",
            {
              connectionId: hosted.connectionId,
            },
          );
          void hosted.host.end({ reason: "idle" });
        } else if (row.inbox) void node.takeInbox(hosted);
      }
      // Rows naming this node for an agent it no longer runs (its end could not be recorded): ended now. Not a row
      // whose lease lapsed lately (handed over on drain, or an adoption here that failed): it is up for adoption, and
      // names this node until another takes it (ending those ended live connections under load); one nobody took in
      // `LAPSED_LEASES` leases is ended.
      const orphans = checked.rows
        .filter((row) => row.owner_node === nodeId && !row.ended && !row.lapsed && !node.hosted.has(row.connection_id))
        .map((row) => row.connection_id)
        .filter((id) => !node.initializing.has(id) && !node.ending.has(id));
      if (orphans.length > 0)
        await control.query(
          `UPDATE ${CONNECTIONS} SET ended_at = now(), end_reason = 'agent ended'
            WHERE connection_id = ANY($1::text[]) AND owner_node = $2 AND ended_at IS NULL`,
          [orphans, nodeId],
        );
      await this.#renewReaders();
      const renewing = this.healthy && performance.now() - this.#lastRenewed <= settings.leaseMs;
      if (settings.connector !== undefined && !node.handOver && !node.closed && renewing) await adoptExpired(node);
      const touched = [...node.touched, ...node.readers.keys()];
      node.touched.clear();
      // Not awaited, and on the main pool: it may wait for row locks the owners' writes hold, and nothing here depends
      // on it. One at a time (waiting ones piled up would hold the pool); ids wait for the next.
      if (touched.length > 0 && this.#touching !== undefined) for (const id of touched) node.touched.add(id);
      else if (touched.length > 0)
        this.#touching = node.pool
          .query(TOUCH, [touched])
          .catch((error: unknown) =>
            node.logger.warn("cluster: touching connections failed", {
              error: error instanceof Error ? node.redact(error).message : String(error),
            }),
          )
          .finally(() => (this.#touching = undefined));
      // Relayed messages whose wake-up was missed, and the listing if something moved without a change signal.
      const relay = node.relay;
      if (relay !== undefined)
        void relay
          .take()
          .then(() => relay.publish())
          .then(() => relay.checkPeers())
          .then(() => relay.checkOrphans())
          .catch((error: unknown) =>
            node.logger.warn("cluster: checking the nodes of shared-session attachments failed", {
              error: error instanceof Error ? node.redact(error).message : String(error),
            }),
          );
      if (this.#beats % 20 === 5) await control.query(SWEEP, [settings.retainEndedMs]);
    } catch (error) {
      node.logger.warn("cluster: the heartbeat's checks failed (the database is unreachable?); retried", {
        error: error instanceof Error ? node.redact(error).message : String(error),
      });
    } finally {
      this.#beats++;
    }
  }

  async #renewReaders(): Promise<void> {
    const node = this.node;
    const readers = [...node.readers.values()].flatMap((set) => [...set]);
    if (readers.length === 0) return;
    const renewed = await node.control.query<{ reader: string }>(RENEW_READERS, [
      readers.map((reader) => reader.connectionId),
      readers.map((reader) => reader.stream),
      readers.map((reader) => reader.token),
      readers.map((reader) => reader.position),
      node.readerLeaseMs,
    ]);
    const kept = new Set(renewed.rows.map((row) => row.reader));
    for (const reader of readers) if (!kept.has(reader.token)) reader.displaced("renewing its claim");
  }
}
