/**
 * A cluster of real `acp serve --cluster` processes on one real PostgreSQL, optionally behind a real HAProxy
 * (configured from examples/cluster/haproxy.cfg): started for a test file, each node's id read from its log, the
 * owner of a connection read from the database, nodes killed (SIGKILL) and started again. Nothing here runs on its
 * own.
 */
import { createPostgresPool, type PostgresPool } from "../../../../src/node/postgres/pool.js";
import { silentLogger } from "../../../../src/jsonrpc/logger.js";
import { startTestHaproxy, type TestHaproxy } from "../../../../src/node/testing/haproxy.js";
import type { TestPostgres } from "../../../../src/node/testing/postgres-server.js";
import { startServe, type ServeProcess } from "../../remote/support/serve-process.js";

export interface ClusterNodeProcess {
  readonly name: string;
  process: ServeProcess;
  nodeId: string;
  port: number;
}

export interface ServeCluster {
  readonly nodes: ClusterNodeProcess[];
  readonly token: string;
  readonly pool: PostgresPool;
  haproxy: TestHaproxy | undefined;
  /** The node whose agent runs `connectionId` now (from the lease row). */
  ownerOf(connectionId: string): Promise<ClusterNodeProcess | undefined>;
  /** SIGKILLs node `index` (no goodbye: its lease just stops being renewed). */
  kill(index: number): Promise<void>;
  /** Each node's name, id, whether it was killed, and the last `chars` of its stderr (for a failure's message). */
  describeNodes(chars?: number): string;
  /** Starts node `index` again on its port. */
  restart(index: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ServeClusterOptions {
  readonly nodes?: number;
  /** `--agent` (default: the reference agent, which keeps its sessions in the same database). */
  readonly agent?: string;
  readonly leaseMs?: number;
  readonly haproxy?: boolean;
  readonly extraArgs?: readonly string[];
}

export async function startServeCluster(
  database: TestPostgres,
  options: ServeClusterOptions = {},
): Promise<ServeCluster> {
  const token = "cluster-e2e-token";
  const count = options.nodes ?? 3;
  const args = (name: string, port: number) => [
    ...["--cluster", database.connectionString, "--token", token, "--node-name", name],
    ...["--lease", String(options.leaseMs ?? 3000), "--drain", "2000"],
    ...(process.env.REMOTE_VERBOSE ? ["--verbose"] : []),
    ...(port === 0 ? [] : ["--port", String(port)]),
    ...(options.agent === undefined ? [] : ["--agent", options.agent]),
    ...(options.extraArgs ?? []),
  ];
  const launch = async (name: string, port: number): Promise<ClusterNodeProcess> => {
    const process = await startServe(args(name, port));
    const nodeId = (await process.waitForStderr(/cluster node (\S+) on /))[1]!;
    return { name, process, nodeId, port: Number(new URL(process.url).port) };
  };
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => launch(`n${i + 1}`, 0)));
  const killed = new Set<string>();
  const pool = await createPostgresPool({ connectionString: database.connectionString, logger: silentLogger, max: 2 });
  const cluster: ServeCluster = {
    nodes,
    token,
    pool,
    haproxy: undefined,
    async ownerOf(connectionId) {
      const row = await pool.query<{ owner_node: string }>(
        "SELECT owner_node FROM acpkit_cluster_connections WHERE connection_id = $1",
        [connectionId],
      );
      return nodes.find((node) => node.nodeId === row.rows[0]?.owner_node);
    },
    async kill(index) {
      killed.add(nodes[index]!.nodeId);
      await nodes[index]!.process.stop("SIGKILL");
    },
    describeNodes(chars = 3000) {
      return nodes
        .map((node) => {
          const stderr = node.process.stderr();
          const tail = stderr.length > chars ? `...${stderr.slice(-chars)}` : stderr;
          const state = killed.has(node.nodeId) ? ", killed" : "";
          return `--- node ${node.name} (${node.nodeId}, port ${node.port}${state}), stderr:\n${tail}`;
        })
        .join("\n");
    },
    async restart(index) {
      const node = nodes[index]!;
      nodes[index] = await launch(node.name, node.port);
    },
    async stop() {
      await cluster.haproxy?.stop();
      await Promise.all(nodes.map((node) => node.process.stop("SIGTERM", 10_000)));
      await pool.end();
    },
  };
  if (options.haproxy) {
    try {
      cluster.haproxy = await startTestHaproxy({
        servers: nodes.map((node) => ({ name: node.name, port: node.port })),
      });
      await Promise.all(nodes.map((node) => cluster.haproxy!.waitForServer(node.name, "UP")));
    } catch (error) {
      // The caller never gets the cluster to stop: stop it here, or its processes keep the test runner alive.
      await cluster.stop();
      throw error;
    }
  }
  return cluster;
}
