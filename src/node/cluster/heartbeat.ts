/**
 * A node's heartbeat, every quarter of the lease: renews the lease of every connection it owns (one UPDATE; one it
 * no longer holds is fenced, one idle for `idleTimeoutMs` on every node is ended), bumps `last_active_at` of the
 * connections used through it, renews its readers' claims (a reader whose stream was taken over ends), takes
 * inboxes a notification may have missed, adopts connections whose lease expired, and now and then sweeps ended
 * connections. A node that could not renew for a whole lease stops its agents: another node may hold them by now.
 */
import { adoptExpired } from "./adoption.js";
import type { ClusterNode } from "./cluster-node.js";
import { CONNECTIONS, EVENTS, INBOX, NODES, PROMPTS, SESSIONS, STREAMS } from "./schema.js";

const RENEW = `
UPDATE ${CONNECTIONS}
   SET lease_expires_at = now() + $2 * interval '1 millisecond',
       last_active_at = CASE WHEN connection_id = ANY($4::text[]) THEN now() ELSE last_active_at END
 WHERE owner_node = $1 AND ended_at IS NULL
RETURNING connection_id, lease_token, last_active_at < now() - $3 * interval '1 millisecond' AS idle,
          EXISTS (SELECT 1 FROM ${INBOX} i WHERE i.connection_id = ${CONNECTIONS}.connection_id) AS inbox`;

const TOUCH = `UPDATE ${CONNECTIONS} SET last_active_at = now() WHERE connection_id = ANY($1::text[]) AND owner_node <> $2`;

const RENEW_READERS = `
UPDATE ${STREAMS} s
   SET reader_expires_at = now() + $5 * interval '1 millisecond', taken = GREATEST(s.taken, v.taken)
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS v(connection_id, stream, reader, taken)
 WHERE s.connection_id = v.connection_id AND s.stream = v.stream AND s.reader = v.reader
RETURNING s.reader`;

const SWEEP = `
WITH gone AS (
  DELETE FROM ${CONNECTIONS} WHERE ended_at < now() - $1 * interval '1 millisecond' RETURNING connection_id
), e AS (DELETE FROM ${EVENTS} WHERE connection_id IN (SELECT connection_id FROM gone)
), s AS (DELETE FROM ${STREAMS} WHERE connection_id IN (SELECT connection_id FROM gone)
), se AS (DELETE FROM ${SESSIONS} WHERE connection_id IN (SELECT connection_id FROM gone)
), p AS (DELETE FROM ${PROMPTS} WHERE connection_id IN (SELECT connection_id FROM gone)
), i AS (DELETE FROM ${INBOX} WHERE connection_id IN (SELECT connection_id FROM gone)
), n AS (DELETE FROM ${NODES} WHERE seen_at < now() - interval '1 day'
)
SELECT count(*)::int AS swept FROM gone`;

export class Heartbeat {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #beats = 0;
  #lastRenewed = performance.now();
  #running: Promise<void> | undefined;
  #stopped = false;
  /** Whether the last heartbeat reached the database. */
  healthy = false;

  constructor(private readonly node: ClusterNode) {}

  start(): void {
    this.#schedule(0);
  }

  /** Runs one heartbeat now (tests, and the start). */
  beat(): Promise<void> {
    this.#running ??= this.#beat().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.beat().finally(() => this.#schedule(this.node.settings.heartbeatMs));
    }, ms);
    this.#timer.unref?.();
  }

  async #beat(): Promise<void> {
    const node = this.node;
    const { pool, nodeId, settings } = node;
    try {
      const started = performance.now();
      const touched = [...node.touched];
      node.touched.clear();
      for (const connectionId of node.readers.keys()) touched.push(connectionId);
      await pool.query(
        `INSERT INTO ${NODES} (node_id) VALUES ($1) ON CONFLICT (node_id) DO UPDATE SET seen_at = now(), draining = $2`,
        [nodeId, node.handOver],
      );
      const renewed = await pool.query<{ connection_id: string; lease_token: string; idle: boolean; inbox: boolean }>(
        RENEW,
        [nodeId, settings.leaseMs, node.limits.idleTimeoutMs, touched],
      );
      this.#lastRenewed = started;
      node.counters.lastHeartbeatMs = performance.now() - started;
      this.healthy = true;
      const held = new Map(renewed.rows.map((row) => [row.connection_id, row]));
      for (const hosted of [...node.hosted.values()]) {
        const row = held.get(hosted.connectionId);
        if (row === undefined || Number(row.lease_token) !== hosted.token) {
          // Not ours any more (adopted elsewhere), or ended (the `x:` may have been missed).
          if (row === undefined && hosted.host.isOpen && !hosted.fenced) {
            const ended = await pool.query(
              `SELECT ended_at IS NOT NULL AS ended FROM ${CONNECTIONS} WHERE connection_id = $1`,
              [hosted.connectionId],
            );
            if (ended.rows[0]?.ended === true) {
              void hosted.host.end({ reason: "deleted" });
              continue;
            }
          }
          if (hosted.host.ended === undefined || hosted.host.isOpen) node.fence(hosted.connectionId);
          continue;
        }
        if (row.idle && hosted.host.isOpen) {
          node.logger.info(
            "cluster: closing an idle connection: no request or stream on any node for the idle timeout",
            {
              connectionId: hosted.connectionId,
            },
          );
          void hosted.host.end({ reason: "idle" });
        } else if (row.inbox) void node.takeInbox(hosted);
      }
      // Rows naming this node for an agent it no longer runs (its end could not be recorded): ended now.
      const orphans = [...held.keys()].filter((id) => !node.hosted.has(id) && !node.initializing.has(id));
      if (orphans.length > 0)
        await pool.query(
          `UPDATE ${CONNECTIONS} SET ended_at = now(), end_reason = 'agent ended'
            WHERE connection_id = ANY($1::text[]) AND owner_node = $2 AND ended_at IS NULL`,
          [orphans, nodeId],
        );
      if (touched.length > 0) await pool.query(TOUCH, [touched, nodeId]);
      await this.#renewReaders();
      if (settings.connector !== undefined && !node.handOver && !node.closed) await adoptExpired(node);
      if (this.#beats % 20 === 5) await pool.query(SWEEP, [settings.retainEndedMs]);
    } catch (error) {
      this.healthy = false;
      node.counters.heartbeatFailures++;
      node.logger.warn("cluster: heartbeat failed (the database is unreachable?)", {
        error: error instanceof Error ? node.redact(error).message : String(error),
      });
      if (performance.now() - this.#lastRenewed > settings.leaseMs && node.hosted.size > 0) {
        node.logger.error("cluster: no lease renewal for a whole lease; stopping this node's agents", {
          agents: node.hosted.size,
        });
        for (const connectionId of [...node.hosted.keys()]) node.fence(connectionId);
      }
    } finally {
      this.#beats++;
    }
  }

  async #renewReaders(): Promise<void> {
    const node = this.node;
    const readers = [...node.readers.values()].flatMap((set) => [...set]);
    if (readers.length === 0) return;
    const renewed = await node.pool.query<{ reader: string }>(RENEW_READERS, [
      readers.map((reader) => reader.connectionId),
      readers.map((reader) => reader.stream),
      readers.map((reader) => reader.token),
      readers.map((reader) => reader.position),
      node.readerLeaseMs,
    ]);
    const kept = new Set(renewed.rows.map((row) => row.reader));
    for (const reader of readers) if (!kept.has(reader.token)) reader.displaced();
  }
}
