/**
 * What the database learns when a connection hosted on this node ends: after the node's queued output is written,
 * the connection's row is marked ended (and every node told, `x:`), or, when the node is draining and hands its
 * connections over, its lease is made to expire now so that another node adopts it at once. Guarded by the lease
 * token: a node that lost the lease changes nothing.
 */
import type { ConnectionEnd } from "../../remote/server/server-connection.js";
import type { ClusterNode, Hosted } from "./cluster-node.js";
import { CLUSTER_CHANNEL, CONNECTIONS } from "./schema.js";

export async function recordConnectionEnd(node: ClusterNode, hosted: Hosted, end: ConnectionEnd): Promise<void> {
  const { connectionId, token } = hosted;
  try {
    await node.writer.flush();
    if (end.reason === "server closing" && node.handOver) {
      await node.pool.query(
        `UPDATE ${CONNECTIONS} SET lease_expires_at = now() - interval '1 second'
          WHERE connection_id = $1 AND owner_node = $2 AND lease_token = $3 AND ended_at IS NULL`,
        [connectionId, node.nodeId, token],
      );
      return;
    }
    await node.pool.query(
      `WITH ended AS (
         UPDATE ${CONNECTIONS} SET ended_at = now(), end_reason = $4
          WHERE connection_id = $1 AND owner_node = $2 AND lease_token = $3 AND ended_at IS NULL
          RETURNING connection_id)
       SELECT pg_notify('${CLUSTER_CHANNEL}', 'x:' || connection_id) FROM ended`,
      [connectionId, node.nodeId, token, end.reason],
    );
  } catch (error) {
    node.logger.warn("cluster: could not record the end of a connection (its lease will expire instead)", {
      connectionId,
      error: error instanceof Error ? node.redact(error).message : String(error),
    });
  }
}
