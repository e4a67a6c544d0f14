/**
 * The failover time for the bench: three `acp serve --cluster` processes (the reference agent, sessions in the same
 * database) behind HAProxy, acpkit's HTTP client through the balancer; each time a fresh connection and session, a
 * prompt, SIGKILL of the node running the agent, and the time until the next prompt on the same connection succeeds.
 * The killed node is started again (same port) before the next time.
 */
import type { TestPostgres } from "../src/node/testing/postgres-server.js";
import { startServeCluster } from "../test/e2e/cluster/support/serve-cluster.js";
import { makeTempDir, removeTempDir } from "../test/e2e/interop/support/temp.js";
import { acpkitHttp } from "../test/e2e/remote/support/client-transports.js";
import { remoteClient } from "../test/e2e/remote/support/remote-client.js";

export async function measureFailover(
  database: TestPostgres,
  options: { leaseMs: number; times: number; progress: (s: string) => void },
): Promise<number[]> {
  const cluster = await startServeCluster(database, { haproxy: true, leaseMs: options.leaseMs });
  const work = makeTempDir("acp-bench-failover-");
  const times: number[] = [];
  try {
    for (let k = 1; k <= options.times; k++) {
      const url = `${cluster.haproxy!.url}/acp`;
      const client = await remoteClient(
        acpkitHttp.open({ url, webSocketUrl: "", token: cluster.token }),
        work,
        "acpkit",
      );
      try {
        await client.initialize();
        const sessionId = await client.newSession(work);
        await client.prompt(sessionId, "/stream 2 before");
        const row = await cluster.pool.query<{ connection_id: string }>(
          "SELECT connection_id FROM acpkit_cluster_connections WHERE ended_at IS NULL ORDER BY created_at DESC LIMIT 1",
        );
        const owner = await cluster.ownerOf(row.rows[0]!.connection_id);
        const index = cluster.nodes.indexOf(owner!);
        const killedAt = performance.now();
        await cluster.kill(index);
        await client.prompt(sessionId, "/stream 2 after");
        const ms = performance.now() - killedAt;
        times.push(ms);
        options.progress(`(cluster) failover ${k}/${options.times}: ${Math.round(ms)} ms`);
        await cluster.restart(index);
        await cluster.haproxy!.waitForServer(cluster.nodes[index]!.name, "UP");
      } finally {
        client.close();
      }
    }
  } finally {
    await cluster.stop();
    removeTempDir(work);
  }
  return times;
}
