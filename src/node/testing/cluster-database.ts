/**
 * For the cluster's tests on a real PostgreSQL: a server of their own with the cluster's schema, and a pool on it.
 * Registers no hooks: each test file calls it from its own `before` and closes it from its own `after`.
 */
import { silentLogger } from "../../jsonrpc/logger.js";
import { migrate } from "../postgres/migrations.js";
import { createPostgresPool, type PostgresPool } from "../postgres/pool.js";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";
import { CLUSTER_MIGRATIONS } from "../cluster/schema.js";

export interface ClusterTestDatabase {
  readonly server: TestPostgres;
  readonly pool: PostgresPool;
  /** Ends the pool, then stops the server. */
  close(): Promise<void>;
}

/** Starts a test PostgreSQL and applies the cluster's migrations (`postgresUnavailable()` says whether it can). */
export async function startClusterTestDatabase(): Promise<ClusterTestDatabase> {
  const server = await startTestPostgres();
  const pool = await createPostgresPool({ connectionString: server.connectionString, logger: silentLogger });
  await migrate(pool, { sets: [CLUSTER_MIGRATIONS] });
  return {
    server,
    pool,
    close: async () => {
      await pool.end();
      await server.close();
    },
  };
}
