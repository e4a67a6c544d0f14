/**
 * The heartbeat's occasional sweep (`$1`: how long ended connections are kept, in ms): connections ended that long
 * ago go with everything of theirs (events, streams, sessions, prompts, inbox, listing rows, share tokens,
 * attachments); so do the listing rows, share tokens and attachments of sessions hosted on a WebSocket (a connection
 * no table holds) by a node that has not beaten for as long (it died with them: a WebSocket is never adopted); relay
 * messages to nodes gone that long; nodes not seen for a day.
 */
import {
  ATTACHMENTS,
  CONNECTIONS,
  EVENTS,
  INBOX,
  NODES,
  PROMPTS,
  RELAY,
  SESSIONS,
  SHARE_TOKENS,
  SHARED_SESSIONS,
  STREAMS,
} from "./schema.js";

const LIVE_NODES = `SELECT node_id FROM ${NODES} WHERE seen_at > now() - $1 * interval '1 millisecond'`;

export const SWEEP = `
WITH gone AS (
  DELETE FROM ${CONNECTIONS} WHERE ended_at < now() - $1 * interval '1 millisecond' RETURNING connection_id
), e AS (DELETE FROM ${EVENTS} WHERE connection_id IN (SELECT connection_id FROM gone)
), s AS (DELETE FROM ${STREAMS} WHERE connection_id IN (SELECT connection_id FROM gone)
), se AS (DELETE FROM ${SESSIONS} WHERE connection_id IN (SELECT connection_id FROM gone)
), p AS (DELETE FROM ${PROMPTS} WHERE connection_id IN (SELECT connection_id FROM gone)
), i AS (DELETE FROM ${INBOX} WHERE connection_id IN (SELECT connection_id FROM gone)
), ss AS (DELETE FROM ${SHARED_SESSIONS} WHERE host_connection IN (SELECT connection_id FROM gone)
), tk AS (DELETE FROM ${SHARE_TOKENS} WHERE host_connection IN (SELECT connection_id FROM gone)
), at AS (DELETE FROM ${ATTACHMENTS} WHERE host_connection IN (SELECT connection_id FROM gone)
), ws AS (
  DELETE FROM ${SHARED_SESSIONS} x WHERE x.node_id NOT IN (${LIVE_NODES})
     AND NOT EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = x.host_connection)
  RETURNING x.host_connection
), wtk AS (
  DELETE FROM ${SHARE_TOKENS} t WHERE t.node_id NOT IN (${LIVE_NODES})
     AND NOT EXISTS (SELECT 1 FROM ${CONNECTIONS} c WHERE c.connection_id = t.host_connection)
), wat AS (DELETE FROM ${ATTACHMENTS} WHERE host_connection IN (SELECT host_connection FROM ws)
), r AS (DELETE FROM ${RELAY} WHERE node_id NOT IN (${LIVE_NODES})
), n AS (DELETE FROM ${NODES} WHERE seen_at < now() - interval '1 day'
)
SELECT count(*)::int AS swept FROM gone`;
