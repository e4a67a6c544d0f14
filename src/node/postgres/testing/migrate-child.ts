/**
 * Test fixture: one "node" starting against a database, for the migration race test. Run as
 * `node migrate-child.js <connection string> <label>`: connects, prints `ready`, waits for a line on stdin, then
 * registers the `race` feature's migrations and applies them, and prints the report as JSON. Does nothing without
 * its arguments. For tests only (not shipped).
 */
import { once } from "node:events";
import { silentLogger } from "../../../jsonrpc/logger.js";
import { migrate, registerMigrations } from "../migrations.js";
import { createPostgresPool } from "../pool.js";

/** The migrations both racing processes apply: slow, and failing if run twice (CREATE TABLE without IF NOT EXISTS). */
export function raceMigrations(label: string) {
  return [
    {
      version: 1,
      name: "create race_log",
      up: `CREATE TABLE race_log (version int NOT NULL, label text NOT NULL);
           SELECT pg_sleep(0.5);
           INSERT INTO race_log VALUES (1, '${label}')`,
    },
    {
      version: 2,
      name: "create race_other",
      up: async (client: { query(text: string, values?: unknown[]): Promise<unknown> }) => {
        await client.query("CREATE TABLE race_other (id int PRIMARY KEY)");
        await client.query("SELECT pg_sleep(0.3)");
        await client.query("INSERT INTO race_log VALUES (2, $1)", [label]);
      },
    },
  ];
}

async function main(connectionString: string, label: string): Promise<void> {
  const pool = await createPostgresPool({ connectionString, logger: silentLogger, applicationName: label });
  try {
    await pool.query("SELECT 1");
    process.stdout.write("ready\n");
    process.stdin.setEncoding("utf8");
    await once(process.stdin, "data");
    // Each process has its own copy of the SQL (the label differs): the checksums differ, the names match.
    registerMigrations("race", raceMigrations(label));
    const report = await migrate(pool);
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    process.stdin.destroy();
    await pool.end();
  }
}

const [connectionString, label] = process.argv.slice(2);
if (connectionString !== undefined && label !== undefined)
  main(connectionString, label).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
