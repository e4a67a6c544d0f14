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
import type { AgentEnd, ClientEnd } from "../../remote/server/shared/participant.js";
import type {
  AttachmentRecord,
  RelayEndpoint,
  RelayMessage,
  RestoredSession,
  SessionRelay,
} from "../../remote/server/shared/session-relay.js";
import { seqOfUpdate } from "../../remote/server/shared/session-history.js";
import { WriteBatcher } from "../postgres/write-batcher.js";
import type { ClusterNode } from "./cluster-node.js";
import {
  ADOPTABLE,
  CONNECTION_GRANT,
  LIVE_NODES,
  SESSION_CLOSED,
  TOKEN_ISSUED,
  LIST_ELSEWHERE,
  LOCATE,
  LOCATE_LISTED,
  PUBLISH,
  REMOVE,
  SAVE,
  SEND,
  TAKE,
  TOKEN_SESSION,
} from "./shared-relay-sql.js";

/** What the relay's batcher writes, in order. */
type RelayWrite =
  | { readonly kind: "send"; readonly node: string; readonly body: string; readonly seq?: SentSeq }
  | { readonly kind: "save"; readonly record: AttachmentRecord }
  | { readonly kind: "remove"; readonly sessionId: string; readonly connectionId: string };

interface SentSeq {
  readonly sessionId: string;
  readonly connectionId: string;
  readonly seq: number;
}

/** The relay of one node's hub. */
export class ClusterSharedRelay implements SessionRelay {
  readonly #batcher: WriteBatcher<RelayWrite>;
  #taking = false;
  #again = false;
  #publishTimer: ReturnType<typeof setTimeout> | undefined;
  #publishing: Promise<void> = Promise.resolve();
  #published = "";
  #closed = false;

  constructor(
    private readonly node: ClusterNode,
    private readonly hub: RelayEndpoint,
  ) {
    this.#batcher = new WriteBatcher({ maxBatch: 1000, write: (items) => this.#write(items) });
  }

  /** A batch, in runs of one kind (records saved before the updates sent after them, removed after those). */
  async #write(items: readonly RelayWrite[]): Promise<void> {
    for (let start = 0; start < items.length;) {
      const kind = items[start]!.kind;
      let end = start + 1;
      while (end < items.length && items[end]!.kind === kind) end++;
      const run = items.slice(start, end);
      start = end;
      if (kind === "send") {
        const sends = run as Extract<RelayWrite, { kind: "send" }>[];
        const seqs = sends.flatMap((item) => (item.seq === undefined ? [] : [item.seq]));
        await this.node.pool.query(SEND, [
          sends.map((item) => item.node),
          sends.map((item) => item.body),
          seqs.map((seq) => seq.sessionId),
          seqs.map((seq) => seq.connectionId),
          seqs.map((seq) => seq.seq),
        ]);
      } else if (kind === "save") {
        const records = (run as Extract<RelayWrite, { kind: "save" }>[]).map((item) => item.record);
        await this.node.pool.query(SAVE, [
          records.map((r) => r.sessionId),
          records.map((r) => r.client.id),
          records.map((r) => r.hostConnectionId),
          records.map((r) => r.client.node),
          records.map((r) => r.role),
          records.map((r) => r.historyPolicy),
          records.map((r) => r.client.shareGrant ?? null),
          records.map((r) => JSON.stringify(r)),
          records.map((r) => r.lastSeq),
        ]);
      } else {
        const removed = run as Extract<RelayWrite, { kind: "remove" }>[];
        await this.node.pool.query(REMOVE, [
          removed.map((item) => item.sessionId),
          removed.map((item) => item.connectionId),
          this.nodeId,
        ]);
      }
    }
  }

  /** Waits this long for a node to take over a session whose node stopped (its agent restarts, reloads it). */
  get adoptionWaitMs(): number {
    return this.node.settings.leaseMs * 3 + this.node.limits.initializeTimeoutMs;
  }

  attachmentSaved(record: AttachmentRecord): void {
    this.#add({ kind: "save", record });
  }

  attachmentRemoved(sessionId: string, connectionId: string): void {
    this.#add({ kind: "remove", sessionId, connectionId });
  }

  /** This node adopted `host`'s connection and reloaded `sessionId`: its hub rebuilds the attachments. */
  restore(host: AgentEnd, sessionId: string, state: RestoredSession): void {
    this.hub.restore(host, sessionId, state);
  }

  /** This node adopted `client`'s connection, attached to `sessionId` elsewhere: its hub asks for it back. */
  rejoin(client: ClientEnd, sessionId: string, afterSeq: number): void {
    this.hub.rejoin(client, sessionId, afterSeq);
  }

  #add(item: RelayWrite): void {
    if (this.#closed) return;
    this.#batcher.add(item).catch((error: unknown) =>
      this.node.logger.warn("cluster: a shared session's message or attachment could not be written", {
        kind: item.kind === "send" ? (JSON.parse(item.body) as RelayMessage).kind : item.kind,
        error: error instanceof Error ? this.node.redact(error).message : String(error),
      }),
    );
  }

  get nodeId(): string {
    return this.node.nodeId;
  }

  async locate(sessionId: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ owner_node: string }>(LOCATE, [sessionId, this.node.settings.leaseMs]);
    const owner = found.rows[0]?.owner_node;
    return owner === this.nodeId ? undefined : owner;
  }

  async locateListed(sessionId: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ node_id: string }>(LOCATE_LISTED, [
      sessionId,
      this.node.settings.leaseMs,
      this.nodeId,
    ]);
    return found.rows[0]?.node_id;
  }

  send(node: string, message: RelayMessage): void {
    // A numbered update for a participant: the attachment's last seq is written with it.
    const seq = message.kind === "deliver" && message.sessionId !== undefined ? seqOfUpdate(message.text) : undefined;
    const sent =
      seq === undefined || message.kind !== "deliver"
        ? undefined
        : { sessionId: message.sessionId!, connectionId: message.to, seq };
    this.#add({ kind: "send", node, body: JSON.stringify(message), ...(sent === undefined ? {} : { seq: sent }) });
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

  publishNow(): Promise<void> {
    return this.publish();
  }

  /**
   * Writes this node's listing when it changed since the last write (called after changes, at heartbeats, and at
   * once for a session on a WebSocket). One write at a time, in order: an older listing never overwrites a newer one.
   */
  publish(): Promise<void> {
    const next = this.#publishing.then(() => this.#publish());
    this.#publishing = next;
    return next;
  }

  async #publish(): Promise<void> {
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
    const rows = await this.node.pool.query<{ summary: string }>(LIST_ELSEWHERE, [
      this.nodeId,
      this.node.settings.leaseMs,
    ]);
    return rows.rows.map((row) => JSON.parse(row.summary) as SharedSessionSummary);
  }

  async tokenIssued(token: string, sessionId: string, hostConnectionId: string): Promise<void> {
    await this.node.pool.query(TOKEN_ISSUED, [hashOf(token), sessionId, hostConnectionId, this.nodeId]);
  }

  async tokenSession(token: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ session_id: string }>(TOKEN_SESSION, [
      hashOf(token),
      this.node.settings.leaseMs,
    ]);
    return found.rows[0]?.session_id;
  }

  async connectionGrant(connectionId: string): Promise<string | undefined> {
    const found = await this.node.pool.query<{ share_grant: string | null }>(CONNECTION_GRANT, [connectionId]);
    return found.rows[0]?.share_grant ?? undefined;
  }

  sessionClosed(sessionId: string, hostConnectionId: string): void {
    if (this.#closed) return;
    this.node.pool.query(SESSION_CLOSED, [sessionId, this.nodeId, hostConnectionId]).catch((error: unknown) =>
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
    const alive = await this.node.pool.query<{ node_id: string }>(LIVE_NODES, [peers, this.node.settings.leaseMs]);
    const living = new Set(alive.rows.map((row) => row.node_id));
    const gone = peers.filter((peer) => !living.has(peer));
    if (gone.length === 0) return;
    this.node.logger.warn(
      "cluster: nodes with shared-session attachments stopped; waiting for their sessions' adoption",
      {
        nodes: gone,
      },
    );
    this.hub.peersGone(gone);
  }

  /**
   * Local clients' attachments whose session's node stopped wait for the node that adopts the session; they end
   * when the session's connection ended (nobody will), or after `adoptionWaitMs`. Called at each heartbeat.
   */
  async checkOrphans(): Promise<void> {
    const orphans = this.hub.orphans();
    if (orphans.length === 0 || this.#closed) return;
    const sessions = [...new Set(orphans.map((orphan) => orphan.sessionId))];
    const found = await this.node.pool.query<{ session_id: string }>(ADOPTABLE, [sessions]);
    const adoptable = new Set(found.rows.map((row) => row.session_id));
    const late = Date.now() - this.adoptionWaitMs;
    const over = new Set(
      orphans
        .filter((orphan) => !adoptable.has(orphan.sessionId) || orphan.since < late)
        .map((orphan) => orphan.sessionId),
    );
    if (over.size > 0)
      this.hub.orphansEnded(over, "the node that ran the session stopped and no node took it over; attach again");
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
