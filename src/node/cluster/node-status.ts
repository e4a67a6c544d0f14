/**
 * A cluster node's readiness (for `/readyz`: the database answers, wake-ups are heard, the node is not draining) and
 * its metrics (for `/metrics`).
 */
import type { ClusterNode } from "./cluster-node.js";
import { CONNECTIONS } from "./schema.js";

/** The database probe in flight per node: concurrent readiness checks share it. */
const probes = new WeakMap<ClusterNode, Promise<string | undefined>>();

/**
 * Why the node should take no traffic, or undefined when it is ready. The database is probed on the control pool (a
 * node whose main pool is busy with its agents' output is not a node without a database), one probe at a time:
 * health checks that come faster than a slow database answers (a balancer's, every 200 ms, each abandoned after its
 * own timeout) share the probe in flight instead of queueing on the pool, where the lease renewals would wait
 * behind them.
 */
export async function nodeReadiness(node: ClusterNode, listening: boolean): Promise<string | undefined> {
  if (node.handOver) return "draining: handing its connections over to other nodes";
  if (node.closed) return "closed";
  let probe = probes.get(node);
  if (probe === undefined) {
    probe = node.control.query("SELECT 1").then(
      () => undefined,
      (error: unknown) =>
        `the cluster's database does not answer (${error instanceof Error ? node.redact(error).message : String(error)})`,
    );
    probes.set(node, probe);
    void probe.finally(() => probes.delete(node));
  }
  const problem = await probe;
  if (problem !== undefined) return problem;
  return listening ? undefined : "not listening for the cluster's notifications (reconnecting to the database)";
}

/** The node's metrics in Prometheus text format. */
export async function nodeMetrics(node: ClusterNode, listening: boolean): Promise<string> {
  let clusterConnections: number | undefined;
  try {
    const counted = await node.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${CONNECTIONS} WHERE ended_at IS NULL AND ready`,
    );
    clusterConnections = counted.rows[0]!.n;
  } catch {
    clusterConnections = undefined;
  }
  return node.counters.render({
    nodeId: node.nodeId,
    hostedConnections: node.hosted.size,
    openStreams: node.openStreams,
    clusterConnections,
    ready: (await nodeReadiness(node, listening)) === undefined,
  });
}
