/**
 * What a node adopting a connection needs to rebuild the shared sessions its agent ran: the attachments the dead
 * node recorded (`acpkit_cluster_attachments`), kept for participants whose own node is alive (the others' records
 * are deleted, and they are kept as departed: their connection, held by the dead node, is adopted on its own, and
 * its adopter asks the node that runs the session then to take it back, `rejoin`), and
 * the last seq any participant may have been sent: the greatest of the attachments' `last_seq` (written with the
 * relayed batch that carried the update) and the last numbered update on the opener's own session stream.
 */
import type { AttachmentRecord, RestoredSession } from "../../remote/server/shared/session-relay.js";
import { seqOfUpdate } from "../../remote/server/shared/session-history.js";
import type { ClusterNode } from "./cluster-node.js";
import { ATTACHMENTS, EVENTS, NODES } from "./schema.js";

const READ = `
SELECT a.session_id, a.connection_id, a.participant, a.last_seq,
       (a.node_id = $2 OR n.seen_at > now() - $3 * interval '1 millisecond') AS alive
  FROM ${ATTACHMENTS} a LEFT JOIN ${NODES} n ON n.node_id = a.node_id
 WHERE a.host_connection = $1`;

/** The last numbered update of each session stream of the connection (its opener's view). */
const LAST_SEEN = `
SELECT s.stream, (SELECT e.body FROM ${EVENTS} e
                   WHERE e.connection_id = $1 AND e.stream = s.stream AND e.body LIKE '%"seq":%'
                   ORDER BY e.event_id DESC LIMIT 1) AS body
  FROM unnest($2::text[]) AS s(stream)`;

/** The sessions of `connectionId` to rebuild, by session id (none: no attachments were recorded). */
export async function readAttachments(node: ClusterNode, connectionId: string): Promise<Map<string, RestoredSession>> {
  const found = await node.pool.query<{
    session_id: string;
    connection_id: string;
    participant: string;
    last_seq: string;
    alive: boolean | null;
  }>(READ, [connectionId, node.nodeId, node.settings.leaseMs]);
  const restoring = new Map<
    string,
    { lastSeq: number; attachments: AttachmentRecord[]; departed: AttachmentRecord[] }
  >();
  const dropped: { sessionId: string; connectionId: string }[] = [];
  for (const row of found.rows) {
    let session = restoring.get(row.session_id);
    if (session === undefined) restoring.set(row.session_id, (session = { lastSeq: 0, attachments: [], departed: [] }));
    session.lastSeq = Math.max(session.lastSeq, Number(row.last_seq));
    const record = JSON.parse(row.participant) as AttachmentRecord;
    if (row.alive === true) session.attachments.push(record);
    else {
      session.departed.push(record);
      dropped.push({ sessionId: row.session_id, connectionId: row.connection_id });
    }
  }
  if (restoring.size === 0) return new Map();
  for (const [sessionId, seq] of await lastSeqs(node, connectionId, [...restoring.keys()])) {
    const session = restoring.get(sessionId)!;
    session.lastSeq = Math.max(session.lastSeq, seq);
  }
  if (dropped.length > 0)
    await node.pool.query(
      `DELETE FROM ${ATTACHMENTS} a USING unnest($1::text[], $2::text[]) AS v(session_id, connection_id)
        WHERE a.session_id = v.session_id AND a.connection_id = v.connection_id`,
      [dropped.map((one) => one.sessionId), dropped.map((one) => one.connectionId)],
    );
  return restoring;
}

/** The last numbered update on each of `sessionIds`' streams of the connection (absent: none there). */
export async function lastSeqs(
  node: ClusterNode,
  connectionId: string,
  sessionIds: readonly string[],
): Promise<Map<string, number>> {
  const seen = await node.pool.query<{ stream: string; body: string | null }>(LAST_SEEN, [connectionId, sessionIds]);
  const seqs = new Map<string, number>();
  for (const row of seen.rows) {
    const seq = row.body === null ? undefined : seqOfUpdate(row.body);
    if (seq !== undefined) seqs.set(row.stream, seq);
  }
  return seqs;
}
