/**
 * Client messages that reached a node other than their connection's owner: written to `acpkit_cluster_inbox` in
 * batches (one INSERT for the messages of many POSTs), the owner woken by `i:<connection id>` in the same
 * transaction; the owner takes a connection's messages in arrival order, under its lease (a node that lost it takes
 * nothing: the messages wait for the adopting node).
 */
import { responseStreamOf } from "../../remote/server/routing.js";
import type { PostgresPool } from "../postgres/pool.js";
import type { ClusterNode, Hosted } from "./cluster-node.js";
import { WriteBatcher } from "../postgres/write-batcher.js";
import { CLUSTER_CHANNEL, CONNECTIONS, INBOX, PROMPTS } from "./schema.js";

/** A client message on its way to the owner: a call (request or notification) or a response to an agent request. */
export interface InboxMessage {
  readonly connectionId: string;
  readonly kind: "call" | "response";
  /** The call's session, or the response's `Acp-Session-Id` header. */
  readonly sessionId: string | undefined;
  readonly body: string;
}

const INSERT = `
WITH ins AS (
  INSERT INTO ${INBOX} (connection_id, kind, session_id, body)
  SELECT m.connection_id, m.kind, m.session_id, m.body
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS m(connection_id, kind, session_id, body, n)
   ORDER BY m.n
  RETURNING connection_id
)
SELECT count(pg_notify('${CLUSTER_CHANNEL}', 'i:' || connection_id)) AS n FROM (SELECT DISTINCT connection_id FROM ins) x`;

/**
 * Takes the messages and, in the same statement, records the prompts among them (their rows in the prompts table, as
 * the owner's writer would): a node that dies after taking a prompt leaves its row to the adopting node, which answers
 * it; taken and not recorded, it was answered by nobody (the client waited for ever). Ids as `idKey` writes them:
 * strings, and integers of up to 15 digits (others are recorded by the writer when the agent gets them).
 */
const TAKE = `
WITH taken AS (
  DELETE FROM ${INBOX}
   WHERE connection_id = $1
     AND EXISTS (SELECT 1 FROM ${CONNECTIONS} WHERE connection_id = $1 AND owner_node = $2 AND lease_token = $3)
  RETURNING seq, kind, session_id, body
), prompts AS (
  SELECT t.session_id, t.body::jsonb -> 'id' AS id FROM taken t
   WHERE t.kind = 'call' AND t.session_id IS NOT NULL AND t.body::jsonb ->> 'method' = 'session/prompt'
), pr AS (
  INSERT INTO ${PROMPTS} (connection_id, request_key, session_id, request_id, kind)
  SELECT $1, CASE jsonb_typeof(p.id) WHEN 'string' THEN 's:' || (p.id #>> '{}') ELSE 'n:' || (p.id #>> '{}') END,
         p.session_id, p.id::text, 'prompt'
    FROM prompts p
   WHERE jsonb_typeof(p.id) = 'string' OR (jsonb_typeof(p.id) = 'number' AND (p.id #>> '{}') ~ '^-?[0-9]{1,15}$')
  ON CONFLICT DO NOTHING
)
SELECT seq, kind, session_id, body FROM taken`;

/** Whether the take recorded this prompt id's row (see `TAKE`). */
export function recordedByTake(id: unknown): boolean {
  return typeof id === "string" || (Number.isSafeInteger(id) && /^-?[0-9]{1,15}$/.test(String(id)));
}

/** Writes inbox messages in batches. Not idempotent (a retried insert could deliver twice): not retried. */
export class InboxWriter {
  readonly #batcher: WriteBatcher<InboxMessage>;

  constructor(pool: PostgresPool) {
    this.#batcher = new WriteBatcher<InboxMessage>({
      maxBatch: 1000,
      write: async (items) => {
        await pool.query(INSERT, [
          items.map((item) => item.connectionId),
          items.map((item) => item.kind),
          items.map((item) => item.sessionId ?? null),
          items.map((item) => item.body),
        ]);
      },
    });
  }

  /** Resolves once the message is committed (the owner is woken). */
  add(message: InboxMessage): Promise<void> {
    return this.#batcher.add(message);
  }

  close(): Promise<void> {
    return this.#batcher.close();
  }
}

/** Takes the messages waiting for a connection this node owns under `token`, oldest first. */
export async function takeInbox(
  pool: PostgresPool,
  connectionId: string,
  nodeId: string,
  token: number,
): Promise<InboxMessage[]> {
  const result = await pool.query<{ seq: string; kind: "call" | "response"; session_id: string | null; body: string }>(
    TAKE,
    [connectionId, nodeId, token],
  );
  return result.rows
    .sort((a, b) => Number(a.seq) - Number(b.seq))
    .map((row) => ({ connectionId, kind: row.kind, sessionId: row.session_id ?? undefined, body: row.body }));
}

/** Takes and delivers a hosted connection's inbox: one taker at a time, once more if woken meanwhile. */
export async function takeInboxOf(node: ClusterNode, hosted: Hosted): Promise<void> {
  if (hosted.adopting) return;
  if (hosted.taking) {
    hosted.again = true;
    return;
  }
  hosted.taking = true;
  try {
    do {
      hosted.again = false;
      const messages = await takeInbox(node.pool, hosted.connectionId, node.nodeId, hosted.token);
      for (const message of messages) deliverTaken(node, hosted, message);
    } while (hosted.again && !hosted.fenced && hosted.host.isOpen);
  } catch (error) {
    node.logger.warn("cluster: taking a connection's inbox failed (retried at the next heartbeat)", {
      connectionId: hosted.connectionId,
      error: error instanceof Error ? node.redact(error).message : String(error),
    });
  } finally {
    hosted.taking = false;
  }
}

function deliverTaken(node: ClusterNode, hosted: Hosted, { kind, sessionId, body }: InboxMessage): void {
  if (!hosted.host.isOpen) return;
  const message = JSON.parse(body) as Record<string, unknown>;
  const refusal =
    kind === "call"
      ? node.forwardCall(hosted, message, body.length, sessionId, { recorded: recordedByTake(message.id) })
      : hosted.host.forwardResponse(message, body.length, sessionId);
  if (refusal === undefined) {
    if (kind === "response") hosted.sink.clientAnswered(message.id);
    return;
  }
  node.logger.warn("cluster: a client message taken from the inbox was refused", {
    connectionId: hosted.connectionId,
    status: refusal.status,
    reason: refusal.message,
  });
  // The client was told 202 by another node: a request refused here is answered with an error, not left hanging.
  if (kind === "call" && "id" in message && typeof message.method === "string") {
    // A prompt the take recorded: its row goes with this answer (an adopting node must not answer it again).
    if (message.method === "session/prompt" && sessionId !== undefined && recordedByTake(message.id))
      void hosted.sink.promptStarted(message.id, sessionId, true);
    const error = { jsonrpc: "2.0", id: message.id, error: { code: -32000, message: refusal.message } };
    hosted.sink.deliver(JSON.stringify(error), responseStreamOf(message.method, sessionId));
  }
}
