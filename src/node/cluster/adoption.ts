/**
 * Adoption: a node takes over the connections whose owner's lease expired (it died, or lost its database), one
 * UPDATE that moves the lease and bumps its fencing token (`FOR UPDATE SKIP LOCKED`: each connection goes to one
 * node). For each, it starts the agent again under the same connection id, replays the client's stored
 * `initialize`, reattaches the connection's sessions (`session/resume` where the agent advertises it, else
 * `session/load`, whose replayed updates are withheld: the client saw them), answers each prompt that was in flight
 * with an error that says so, rebuilds the attachments of other clients to its shared sessions (`attachments.ts`,
 * `session-restore.ts`), and only then takes the client's waiting messages. A connection whose agent cannot
 * reattach its sessions ends with a clear error.
 */
import { observerAgent } from "../../remote/server/shared/observer-agent.js";
import { errorText } from "../../remote/server/errors.js";
import type { RestoredSession } from "../../remote/server/shared/session-relay.js";
import { lastSeqs, readAttachments } from "./attachments.js";
import { notificationText, SESSION_ENDED } from "../../remote/server/shared/share-protocol.js";
import type { ClusterNode, Hosted } from "./cluster-node.js";
import { CONNECTIONS, EVENTS, NODES, PROMPTS, SESSIONS } from "./schema.js";

/** pg-pool's error when no client came free in time: the query never ran. */
const POOL_WAIT_TIMEOUT = "timeout exceeded when trying to connect";

/** Connections adopted per heartbeat at most (the rest at the next ones, or by other nodes). */
const ADOPT_PER_BEAT = 16;

/** A connection is adoptable when its owner node stopped beating, or a drained node let its lease lapse. */
const TAKE_LEASES = `
UPDATE ${CONNECTIONS}
   SET owner_node = $1, lease_token = lease_token + 1, lease_expires_at = 'infinity',
       adoptions = adoptions + 1, last_active_at = now()
 WHERE connection_id IN (
   SELECT c.connection_id FROM ${CONNECTIONS} c LEFT JOIN ${NODES} n ON n.node_id = c.owner_node
    WHERE c.ended_at IS NULL AND c.ready AND c.owner_node <> $1
      AND (c.lease_expires_at < now() OR n.seen_at IS NULL OR n.seen_at < now() - $2 * interval '1 millisecond')
    ORDER BY c.created_at LIMIT $3 FOR UPDATE OF c SKIP LOCKED)
RETURNING connection_id, lease_token, initialize, share_grant`;

/** Why an in-flight prompt failed, as the client reads it. */
export const PROMPT_LOST =
  "The node running this connection's agent went away during the turn (it stopped or lost its database); the agent " +
  "was restarted on another node and this turn's remaining output is lost. The session is intact: send the prompt again.";

/** Why a prompt to another node's shared session, in flight through the node that went away, failed. */
export const RELAYED_PROMPT_LOST =
  "The node that carried this prompt to the shared session went away during the turn; the turn goes on in the " +
  "session (its updates still reach this connection), but its answer is lost.";

export async function adoptExpired(node: ClusterNode): Promise<void> {
  const { control, settings, nodeId } = node;
  // Connections whose owner died before their initialize was answered cannot be adopted: ended.
  await control.query(
    `UPDATE ${CONNECTIONS} c SET ended_at = now(), end_reason = 'owner died during initialize'
      WHERE ended_at IS NULL AND NOT ready
        AND NOT EXISTS (SELECT 1 FROM ${NODES} n
                         WHERE n.node_id = c.owner_node AND n.seen_at > now() - $1 * interval '1 millisecond')`,
    [settings.leaseMs],
  );
  const room = Math.min(ADOPT_PER_BEAT, node.limits.maxConnections - node.hosted.size);
  if (room <= 0) return;
  const taken = await control.query<{
    connection_id: string;
    lease_token: string;
    initialize: string;
    share_grant: string | null;
  }>(TAKE_LEASES, [nodeId, settings.leaseMs, room]);
  // Not awaited: the agents start while the heartbeat goes on renewing this node's leases (the adopted ones too).
  // Until its host is registered, an adopted connection is `initializing`: the heartbeat's checks must not take its
  // row (owned by this node, no agent here yet) for an orphan and end it.
  for (const row of taken.rows) {
    node.initializing.add(row.connection_id);
    node.track(
      adopt(node, row.connection_id, Number(row.lease_token), row.initialize, row.share_grant)
        .catch(async (error: unknown) => {
          node.counters.adoptionFailures++;
          node.logger.error("cluster: adopting a connection failed; its lease lapses for the next heartbeat", {
            connectionId: row.connection_id,
            error: error instanceof Error ? node.redact(error).message : String(error),
          });
          // Before its agent started (the database was busy): the lease lapses, and the connection is adopted again
          // (held without an agent, it would have been ended as an orphan).
          await node.pool
            .query(
              `UPDATE ${CONNECTIONS} SET lease_expires_at = now()
                WHERE connection_id = $1 AND owner_node = $2 AND lease_token = $3`,
              [row.connection_id, node.nodeId, Number(row.lease_token)],
            )
            .catch(() => {});
        })
        .finally(() => node.initializing.delete(row.connection_id)),
    );
  }
}

async function adopt(
  node: ClusterNode,
  connectionId: string,
  token: number,
  initializeText: string,
  shareGrant: string | null,
): Promise<void> {
  const started = performance.now();
  const { pool } = node;
  // Reads retried on transient errors (a busy pool's wait timeout among them); the DELETE of the open prompts only on
  // that timeout (nothing ran then: the prompts it returns must not be lost to a retry).
  const [events, sessions, attachments] = await pool.retry("read an adopted connection", () =>
    Promise.all([
      pool.query<{ last: string | null }>(`SELECT max(event_id) AS last FROM ${EVENTS} WHERE connection_id = $1`, [
        connectionId,
      ]),
      pool.query<{ session_id: string; params: string | null }>(
        `SELECT session_id, params FROM ${SESSIONS} WHERE connection_id = $1 ORDER BY session_id`,
        [connectionId],
      ),
      node.relay === undefined ? new Map<string, RestoredSession>() : readAttachments(node, connectionId),
    ]),
  );
  const prompts = await pool.retry(
    "take an adopted connection's open prompts",
    () =>
      pool.query<{ session_id: string; request_id: string; kind: string }>(
        `DELETE FROM ${PROMPTS} WHERE connection_id = $1 RETURNING session_id, request_id, kind`,
        [connectionId],
      ),
    { isTransient: (error) => error instanceof Error && error.message === POOL_WAIT_TIMEOUT },
  );
  const host = node.server.host({
    // A connection opened with a share token stays one: an agent of its own it never had.
    connector: shareGrant === null ? node.settings.connector! : observerAgent(shareGrant),
    connectionId,
    onEnd: (_host, end) => node.onHostEnd(connectionId, end),
  });
  if (typeof host === "string") {
    // Full here: let the lease lapse again for another node.
    await pool.query(
      `UPDATE ${CONNECTIONS} SET lease_expires_at = now() WHERE connection_id = $1 AND owner_node = $2 AND lease_token = $3`,
      [connectionId, node.nodeId, token],
    );
    return;
  }
  // Sessions the agent opened have their params; one known only from the stream is another agent's shared session
  // this connection attached to (its agent must not load it): the session's node is asked to take it back.
  const sessionRows = sessions.rows.filter((row) => row.params !== null);
  const attached = sessions.rows.filter((row) => row.params === null).map((row) => row.session_id);
  const seen =
    attached.length === 0 || node.relay === undefined
      ? new Map<string, number>()
      : await lastSeqs(node, connectionId, attached);
  const hosted = node.hostAdopted(
    connectionId,
    host,
    token,
    Number(events.rows[0]?.last ?? 0),
    sessions.rows.map((row) => row.session_id),
  );
  hosted.adopting = true;
  const rejoining = node.relay !== undefined && host.shared !== undefined;
  for (const sessionId of rejoining ? [] : attached) {
    const reason = "the node that held this connection stopped; attach to the session again";
    hosted.sink.deliver(notificationText(SESSION_ENDED, { sessionId, reason }), sessionId);
  }
  // The turns that were running are lost whatever happens next: their prompts are answered at once, not after the
  // agent is back (which may take as long as the dead agent's session leases).
  // The dead agent's requests to the client (permissions, files, terminals) are cancelled: nobody waits for them.
  for (const open of prompts.rows) {
    const id = JSON.parse(open.request_id) as unknown;
    const text =
      open.kind === "client"
        ? { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } }
        : {
            jsonrpc: "2.0",
            id,
            error: { code: -32603, message: attached.includes(open.session_id) ? RELAYED_PROMPT_LOST : PROMPT_LOST },
          };
    hosted.sink.deliver(JSON.stringify(text), open.session_id === "" ? undefined : open.session_id);
  }
  const replies = new Replies();
  // Everything the agent says until its sessions are back is for this node, not the client.
  hosted.sink.intercept = (text) => {
    replies.offer(text);
    return true;
  };
  try {
    const message = JSON.parse(initializeText) as Record<string, unknown>;
    const answer = await host.initialize(message, initializeText.length);
    if ("error" in answer.message) throw new Error(`the agent refused the replayed initialize: ${answer.text}`);
    const capabilities = ((answer.message.result as Record<string, any> | undefined)?.agentCapabilities ??
      {}) as Record<string, any>;
    const method = capabilities.sessionCapabilities?.resume
      ? "session/resume"
      : capabilities.loadSession
        ? "session/load"
        : undefined;
    if (sessionRows.length > 0 && method === undefined)
      throw new Error("the agent can neither resume nor load sessions, so its sessions cannot be reattached");
    for (const row of sessionRows) {
      const params = {
        ...(row.params ? (JSON.parse(row.params) as Record<string, unknown>) : { cwd: "/", mcpServers: [] }),
        sessionId: row.session_id,
      };
      const id = `acpkit-adopt-${replies.next()}`;
      const reply = replies.expect(id);
      const refusal = host.forwardCall({ jsonrpc: "2.0", id, method, params }, 200, row.session_id);
      if (refusal !== undefined) throw new Error(`reattaching session ${row.session_id}: ${refusal.message}`);
      const result = await withTimeout(
        reply,
        node.limits.initializeTimeoutMs,
        `${method} of session ${row.session_id}`,
      );
      if ("error" in result)
        throw new Error(`${method} of session ${row.session_id} failed: ${JSON.stringify(result.error)}`);
    }
  } catch (error) {
    node.counters.adoptionFailures++;
    node.logger.error("cluster: adopting a connection failed; ending it", { connectionId, error: errorText(error) });
    finishAdoption(hosted);
    void host.end({ reason: "adoption failed", error });
    return;
  }
  finishAdoption(hosted);
  // The shared sessions' attachments are rebuilt before any client message reaches the agent.
  for (const [sessionId, state] of attachments)
    if (host.shared !== undefined && sessionRows.some((row) => row.session_id === sessionId))
      node.relay?.restore(host.shared, sessionId, state);
  // The shared sessions of other nodes this connection was attached to: it goes on in them from here.
  for (const sessionId of rejoining ? attached : [])
    node.relay!.rejoin(host.shared!, sessionId, seen.get(sessionId) ?? -1);
  node.counters.adoptions++;
  node.logger.info("cluster: adopted a connection", {
    connectionId,
    sessions: sessionRows.length,
    promptsLost: prompts.rows.filter((row) => row.kind === "prompt").length,
    requestsCancelled: prompts.rows.filter((row) => row.kind === "client").length,
    ms: Math.round(performance.now() - started),
  });
  node.server.opened(host);
  void node.takeInbox(hosted);
}

/** Output goes to the client again, and its messages to the agent. */
function finishAdoption(hosted: Hosted): void {
  hosted.sink.intercept = undefined;
  hosted.adopting = false;
}

/** The agent's answers to the adopting node's own requests. */
class Replies {
  #count = 0;
  readonly #waiting = new Map<string, (message: Record<string, any>) => void>();

  next(): number {
    return ++this.#count;
  }

  expect(id: string): Promise<Record<string, any>> {
    return new Promise((resolve) => this.#waiting.set(id, resolve));
  }

  offer(text: string): void {
    if (this.#waiting.size === 0 || !text.includes('"acpkit-adopt-')) return;
    const message = JSON.parse(text) as Record<string, any>;
    if (typeof message.id !== "string" || "method" in message) return;
    const resolve = this.#waiting.get(message.id);
    this.#waiting.delete(message.id);
    resolve?.(message);
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} got no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
