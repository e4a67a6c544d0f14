/**
 * The statements of the cluster's shared-session relay (./shared-relay.ts): relayed messages, attachment records,
 * the listing of each node's live sessions, share tokens, and where a session runs.
 */
import {
  ATTACHMENTS,
  CLUSTER_CHANNEL,
  CONNECTIONS,
  NODES,
  RELAY,
  SESSIONS,
  SHARE_TOKENS,
  SHARED_SESSIONS,
} from "./schema.js";

/** Relayed messages, and in the same statement the last seq each attachment was sent (a node adopting reads it). */
export const SEND = `
WITH ins AS (
  INSERT INTO ${RELAY} (node_id, body)
  SELECT m.node_id, m.body FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS m(node_id, body, n) ORDER BY m.n
  RETURNING node_id
), seqs AS (
  UPDATE ${ATTACHMENTS} a SET last_seq = GREATEST(a.last_seq, u.seq)
    FROM (SELECT v.session_id, v.connection_id, max(v.seq) AS seq
            FROM unnest($3::text[], $4::text[], $5::bigint[]) AS v(session_id, connection_id, seq)
           GROUP BY v.session_id, v.connection_id) u
   WHERE a.session_id = u.session_id AND a.connection_id = u.connection_id
)
SELECT count(pg_notify('${CLUSTER_CHANNEL}', 'r:' || node_id)) AS n FROM (SELECT DISTINCT node_id FROM ins) x`;

export const SAVE = `
INSERT INTO ${ATTACHMENTS} AS a
  (session_id, connection_id, host_connection, node_id, role, history_policy, share_grant, participant, last_seq)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                     $9::bigint[])
ON CONFLICT (session_id, connection_id) DO UPDATE
  SET host_connection = EXCLUDED.host_connection, node_id = EXCLUDED.node_id, role = EXCLUDED.role,
      history_policy = EXCLUDED.history_policy, share_grant = EXCLUDED.share_grant,
      participant = EXCLUDED.participant, last_seq = GREATEST(a.last_seq, EXCLUDED.last_seq)`;

/** Whether this node (`$node`) runs the connection of attachment `a`'s session (a WebSocket is only in its node). */
const RUNS_HOST = (node: string) => `(
  EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = a.host_connection AND c.owner_node = ${node})
  OR NOT EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = a.host_connection))`;

/** Only while this node runs the session's connection (a node that lost it leaves the records to the adopter). */
export const REMOVE = `
DELETE FROM ${ATTACHMENTS} a USING unnest($1::text[], $2::text[]) AS v(session_id, connection_id)
 WHERE a.session_id = v.session_id AND a.connection_id = v.connection_id AND ${RUNS_HOST("$3")}`;

/** Sessions that a node may still take over: their agent's connection is live (its owner alive or not). */
export const ADOPTABLE = `
SELECT DISTINCT s.session_id FROM ${SESSIONS} s JOIN ${CONNECTIONS} c ON c.connection_id = s.connection_id
 WHERE s.session_id = ANY($1::text[]) AND s.params IS NOT NULL AND c.ended_at IS NULL AND c.ready`;

export const TAKE = `DELETE FROM ${RELAY} WHERE node_id = $1 RETURNING seq, body`;

/**
 * A session's node: its HTTP connection's owner, else (a session hosted on a WebSocket, which the cluster's tables do
 * not hold) the live node that lists it. `$2`: the lease, in ms.
 */
/** The live node other than $3 whose hub lists session $1 (`SessionRelay.locateListed`). */
export const LOCATE_LISTED = `
SELECT x.node_id FROM ${SHARED_SESSIONS} x JOIN ${NODES} n ON n.node_id = x.node_id
 WHERE x.session_id = $1 AND x.node_id <> $3 AND n.seen_at > now() - $2 * interval '1 millisecond'`;

export const LOCATE = `
SELECT owner_node FROM (
  (SELECT c.owner_node, 0 AS rank FROM ${SESSIONS} s JOIN ${CONNECTIONS} c ON c.connection_id = s.connection_id
    WHERE s.session_id = $1 AND s.params IS NOT NULL AND c.ended_at IS NULL AND c.ready
    ORDER BY c.created_at DESC LIMIT 1)
  UNION ALL
  SELECT x.node_id, 1 FROM ${SHARED_SESSIONS} x JOIN ${NODES} n ON n.node_id = x.node_id
   WHERE x.session_id = $1 AND n.seen_at > now() - $2 * interval '1 millisecond'
     AND NOT EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = x.host_connection)
) found ORDER BY rank LIMIT 1`;

/** A listed session's host: a live connection of the cluster run by the listing node, or a WebSocket of a live node. */
const LISTED_HOST_LIVE = (x: string, nodeColumn: string) => `(
  EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = ${x}.host_connection AND c.ended_at IS NULL
            AND c.owner_node = ${nodeColumn})
  OR (NOT EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = ${x}.host_connection)
      AND EXISTS (SELECT 1 FROM ${NODES} n WHERE n.node_id = ${nodeColumn}
                    AND n.seen_at > now() - $2 * interval '1 millisecond')))`;

export const PUBLISH = `
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

export const LIST_ELSEWHERE = `
SELECT x.summary FROM ${SHARED_SESSIONS} x
 WHERE x.node_id <> $1 AND ${LISTED_HOST_LIVE("x", "x.node_id")}
 ORDER BY x.session_id`;

export const TOKEN_SESSION = `
SELECT t.session_id FROM ${SHARE_TOKENS} t
 WHERE t.token_hash = $1 AND (
   EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = t.host_connection AND c.ended_at IS NULL)
   OR (NOT EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = t.host_connection)
       AND EXISTS (SELECT 1 FROM ${NODES} n WHERE n.node_id = t.node_id
                     AND n.seen_at > now() - $2 * interval '1 millisecond')))`;

export const TOKEN_ISSUED = `
INSERT INTO ${SHARE_TOKENS} (token_hash, session_id, host_connection, node_id) VALUES ($1, $2, $3, $4)
ON CONFLICT (token_hash) DO NOTHING`;

export const CONNECTION_GRANT = `SELECT share_grant FROM ${CONNECTIONS} WHERE connection_id = $1 AND ended_at IS NULL`;

/** A session of node `$2` ended: its share tokens, and its attachment records while this node runs its host. */
export const SESSION_CLOSED = `
WITH t AS (DELETE FROM ${SHARE_TOKENS} WHERE session_id = $1 AND node_id = $2)
DELETE FROM ${ATTACHMENTS} a WHERE a.session_id = $1 AND a.host_connection = $3 AND ${RUNS_HOST("$2")}`;

/** Which of nodes `$1` beat within the lease (`$2`, ms). */
export const LIVE_NODES = `
SELECT node_id FROM ${NODES} WHERE node_id = ANY($1::text[]) AND seen_at > now() - $2 * interval '1 millisecond'`;
