/**
 * Shared sessions across the cluster: the `SessionRelay` a node gives its hub (see
 * src/remote/server/shared/session-relay.ts). In PostgreSQL:
 * - `acpkit_cluster_relay`: messages from one node's hub to another's (a participant's calls to a session's owner,
 *   deliveries back), written in batches, the target woken by `r:<node id>` in the same statement; each node takes
 *   its own in `seq` order, one taker at a time.
 * - `acpkit_cluster_shared_sessions`: each node's live sessions as its listing shows them (refreshed shortly after
 *   a change, and at each heartbeat when something moved), what `GET <path>/sessions` on any node returns.
 * - `acpkit_cluster_share_tokens`: the share tokens issued (their SHA-256 only), so that any node accepts them.
 * A session is found (`locate`) by the connection that opened it (`acpkit_cluster_sessions`, written with the answer
 * that gave the client the session's id) and that connection's owner.
 */
import { createHash } from "node:crypto";
import type { SharedSessionSummary } from "../../remote/server/shared/hub-support.js";
import type { RelayEndpoint, RelayMessage, SessionRelay } from "../../remote/server/shared/session-relay.js";
import { WriteBatcher } from "../postgres/write-batcher.js";
import type { ClusterNode } from "./cluster-node.js";
import { CLUSTER_CHANNEL, CONNECTIONS, NODES, RELAY, SESSIONS, SHARE_TOKENS, SHARED_SESSIONS } from "./schema.js";

const SEND = `
WITH ins AS (
  INSERT INTO ${RELAY} (node_id, body)
  SELECT m.node_id, m.body FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS m(node_id, body, n) ORDER BY m.n
  RETURNING node_id
)
SELECT count(pg_notify('${CLUSTER_CHANNEL}', 'r:' || node_id)) AS n FROM (SELECT DISTINCT node_id FROM ins) x`;

const TAKE = `DELETE FROM ${RELAY} WHERE node_id = $1 RETURNING seq, body`;

const LOCATE = `
SELECT c.owner_node FROM ${SESSIONS} s JOIN ${CONNECTIONS} c ON c.connection_id = s.connection_id
 WHERE s.session_id = $1 AND s.params IS NOT NULL AND c.ended_at IS NULL AND c.ready
 ORDER BY c.created_at DESC LIMIT 1`;

const PUBLISH = `
WITH up AS (
  INSERT INTO ${SHARED_SESSIONS} AS x (session_id, node_id, host_connection, summary, updated_at)
  SELECT s.session_id, $1, s.host_connection, s.summary, now()
    FROM unnest($2::text[], $3::text[], $4::text[]) AS s(session_id, host_connection, summary)
  ON CONFLICT (session_id) DO UPDATE
    SET node_id = EXCLUDED.node_id, host_connection = EXCLUDED.host_connection, summary = EXCLUDED.summary,
        updated_at = now()
  RETURNING 1
)
DELETE FROM ${SHARED_SESSIONS} WHERE node_id = $1 AND session_id <> ALL($2::text[])`;

const LIST_ELSEWHERE = `
SELECT x.summary FROM ${SHARED_SESSIONS} x JOIN ${CONNECTIONS} c ON c.connection_id = x.host_connection
 WHERE x.node_id <> $1 AND c.ended_at IS NULL AND c.owner_node = x.node_id
 ORDER BY x.session_id`;

const TOKEN_SESSION = `
SELECT t.session_id FROM ${SHARE_TOKENS} t JOIN ${CONNECTIONS} c ON c.connection_id = t.host_connection
 WHERE t.token_hash = $1 AND c.ended_at IS NULL`;

/** The relay of one node's hub. */
export class ClusterSharedRelay implements SessionRelay {
  readonly #batcher: WriteBatcher<{ node: string; body: string }>;
  #taking = false;
  #again = false;
  #publishTimer: ReturnType<typeof setTimeout> | undefined;
  #published = "";
  #closed = false;

  constructor(
    private readonly node: ClusterNode,
    private readonly hub: RelayEndpoint,
  ) {
    this.#batcher = new WriteBatcher({
      maxBatch: 1000,
      write: async (items) => {
        await node.pool.query(SEND, [items.map((item) => item.node), items.map((item) => item.body)]);
      },
    });
  }

  get nodeId(): string {
    return this.node.nodeId;
  }

  async locate(sessionId: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ owner_node: string }>(LOCATE, [sessionId]);
    const owner = found.rows[0]?.owner_node;
    return owner === this.nodeId ? undefined : owner;
  }

  send(node: string, message: RelayMessage): void {
    if (this.#closed) return;
    this.#batcher.add({ node, body: JSON.stringify(message) }).catch((error: unknown) =>
      this.node.logger.warn("cluster: a shared session's message to another node could not be written", {
        node,
        kind: message.kind,
        error: error instanceof Error ? this.node.redact(error).message : String(error),
      }),
    );
  }

  /** Takes this node's relayed messages and hands them to the hub in order (woken by `r:`, and at each heartbeat). */
  async take(): Promise<void> {
    if (this.#taking) {
      this.#again = true;
      return;
    }
    this.#taking = true;
    try {
      do {
        this.#again = false;
        const taken = await this.node.pool.query<{ seq: string; body: string }>(TAKE, [this.nodeId]);
        for (const row of taken.rows.sort((a, b) => Number(a.seq) - Number(b.seq))) {
          try {
            this.hub.relayed(JSON.parse(row.body) as RelayMessage);
          } catch (error) {
            this.node.logger.error("cluster: a relayed shared-session message failed", {
              error: error instanceof Error ? error.message : String(error),
            });
          }
        }
      } while (this.#again && !this.#closed);
    } catch (error) {
      this.node.logger.warn("cluster: taking relayed shared-session messages failed (retried at the next heartbeat)", {
        error: error instanceof Error ? this.node.redact(error).message : String(error),
      });
    } finally {
      this.#taking = false;
    }
  }

  changed(): void {
    if (this.#publishTimer !== undefined || this.#closed) return;
    this.#publishTimer = setTimeout(() => {
      this.#publishTimer = undefined;
      void this.publish();
    }, 20);
    this.#publishTimer.unref?.();
  }

  /** Writes this node's listing when it changed since the last write (called after changes and at heartbeats). */
  async publish(): Promise<void> {
    if (this.#closed) return;
    const sessions = this.hub.list();
    const text = JSON.stringify(sessions);
    if (text === this.#published) return;
    this.#published = text;
    try {
      await this.node.pool.query(PUBLISH, [
        this.nodeId,
        sessions.map((session) => session.sessionId),
        sessions.map((session) => session.hostConnectionId),
        sessions.map((session) => JSON.stringify(session)),
      ]);
    } catch (error) {
      this.#published = "";
      this.node.logger.warn("cluster: this node's shared sessions could not be listed in the database", {
        error: error instanceof Error ? this.node.redact(error).message : String(error),
      });
    }
  }

  async listElsewhere(): Promise<SharedSessionSummary[]> {
    const rows = await this.node.pool.query<{ summary: string }>(LIST_ELSEWHERE, [this.nodeId]);
    return rows.rows.map((row) => JSON.parse(row.summary) as SharedSessionSummary);
  }

  async tokenIssued(token: string, sessionId: string, hostConnectionId: string): Promise<void> {
    await this.node.pool.query(
      `INSERT INTO ${SHARE_TOKENS} (token_hash, session_id, host_connection, node_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (token_hash) DO NOTHING`,
      [hashOf(token), sessionId, hostConnectionId, this.nodeId],
    );
  }

  async tokenSession(token: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ session_id: string }>(TOKEN_SESSION, [hashOf(token)]);
    return found.rows[0]?.session_id;
  }

  async connectionGrant(connectionId: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ share_grant: string | null }>(
      `SELECT share_grant FROM ${CONNECTIONS} WHERE connection_id = $1 AND ended_at IS NULL`,
      [connectionId],
    );
    return found.rows[0]?.share_grant ?? undefined;
  }

  sessionClosed(sessionId: string): void {
    if (this.#closed) return;
    this.node.pool
      .query(`DELETE FROM ${SHARE_TOKENS} WHERE session_id = $1 AND node_id = $2`, [sessionId, this.nodeId])
      .catch((error: unknown) =>
        this.node.logger.warn("cluster: a closed session's share tokens could not be deleted (they end with it)", {
          error: error instanceof Error ? this.node.redact(error).message : String(error),
        }),
      );
  }

  /**
   * The nodes this one has attachments with that stopped (no heartbeat for a lease): their attachments end here, so
   * nothing waits for a node that will not answer. Called at each heartbeat; no query when there are none.
   */
  async checkPeers(): Promise<void> {
    const peers = [...this.hub.peers()];
    if (peers.length === 0 || this.#closed) return;
    const alive = await this.node.pool.query<{ node_id: string }>(
      `SELECT node_id FROM ${NODES} WHERE node_id = ANY($1::text[]) AND seen_at > now() - $2 * interval '1 millisecond'`,
      [peers, this.node.settings.leaseMs],
    );
    const living = new Set(alive.rows.map((row) => row.node_id));
    const gone = peers.filter((peer) => !living.has(peer));
    if (gone.length === 0) return;
    this.node.logger.warn("cluster: nodes with shared-session attachments stopped; their attachments end", {
      nodes: gone,
    });
    this.hub.peersGone(gone);
  }

  /** The node is closing: what is queued is still written. */
  async close(): Promise<void> {
    clearTimeout(this.#publishTimer);
    await this.publish();
    this.#closed = true;
    await this.#batcher.close();
  }
}

function hashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
