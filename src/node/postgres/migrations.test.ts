import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../testing/postgres-server.js";
import { PostgresSchemaError } from "./errors.js";
import { migrate, MIGRATION_LOCK_KEY, registeredMigrations, registerMigrations, type Migration } from "./migrations.js";
import { createPostgresPool, type PostgresPool } from "./pool.js";

const unavailable = postgresUnavailable();
let server: TestPostgres;
let databases = 0;

before(async () => {
  if (unavailable === undefined) server = await startTestPostgres();
});

after(async () => {
  await server?.close();
});

/** A pool on a fresh database of the test server. */
async function freshPool(logger: Logger = silentLogger): Promise<PostgresPool & { readonly url: string }> {
  const name = `migrations_${++databases}`;
  await server.createDatabase(name);
  const url = server.connectionStringFor(name);
  return Object.assign(await createPostgresPool({ connectionString: url, logger }), { url });
}

const v1: Migration = { version: 1, name: "create notes", up: "CREATE TABLE notes (id int PRIMARY KEY, body text)" };
const v2: Migration = { version: 2, name: "add author", up: "ALTER TABLE notes ADD COLUMN author text" };
const v3: Migration = {
  version: 3,
  name: "seed",
  up: async (client) => {
    await client.query("INSERT INTO notes (id, body, author) VALUES ($1, $2, $3)", [1, "hello", "ada"]);
  },
};

test("the registry: by feature, in registration order; the same set again is a no-op, a different one throws", () => {
  const before = registeredMigrations().length;
  const set = registerMigrations("registry-probe", [v2, v1]);
  assert.deepEqual(
    set.migrations.map((m) => m.version),
    [1, 2],
    "sorted by version",
  );
  assert.equal(registerMigrations("registry-probe", [v1, v2]), set);
  assert.throws(() => registerMigrations("registry-probe", [v1]), /already registered with different versions/);
  assert.throws(() => registerMigrations("Bad Name", [v1]), /lower-case letters/);
  assert.throws(() => registerMigrations("dupe", [v1, { ...v2, version: 1 }]), /v1 is defined twice/);
  assert.throws(() => registerMigrations("zero", [{ ...v1, version: 0 }]), /positive integer/);
  assert.equal(registeredMigrations().length, before + 1);
  assert.equal(registeredMigrations().at(-1)?.feature, "registry-probe");
});

test(
  "pending migrations are applied in order, each once; a second run applies nothing",
  { skip: unavailable },
  async () => {
    const pool = await freshPool();
    try {
      const first = await migrate(pool, { sets: [{ feature: "notes", migrations: [v3, v1, v2] }] });
      assert.deepEqual(
        first.applied.map((m) => `${m.feature} v${m.version}`),
        ["notes v1", "notes v2", "notes v3"],
      );
      assert.deepEqual(first.versions, { notes: 3 });
      const again = await migrate(pool, { sets: [{ feature: "notes", migrations: [v1, v2, v3] }] });
      assert.deepEqual(again.applied, []);
      assert.deepEqual(again.versions, { notes: 3 });
      const { rows } = await pool.query<{ feature: string; version: number; name: string }>(
        "SELECT feature, version, name FROM acpkit_schema_migrations ORDER BY version",
      );
      assert.deepEqual(
        rows.map((row) => [row.feature, row.version, row.name]),
        [
          ["notes", 1, "create notes"],
          ["notes", 2, "add author"],
          ["notes", 3, "seed"],
        ],
      );
      // The advisory lock is released afterwards.
      const locks = await pool.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory'");
      assert.equal(locks.rows.length, 0);
    } finally {
      await pool.end();
    }
  },
);

test(
  "a failing migration leaves nothing of itself; those before it stay; the error names it",
  { skip: unavailable },
  async () => {
    const pool = await freshPool();
    const broken: Migration = {
      version: 2,
      name: "half done",
      up: "CREATE TABLE half (id int); INSERT INTO nowhere VALUES (1)",
    };
    try {
      const error = await migrate(pool, { sets: [{ feature: "notes", migrations: [v1, broken] }] }).then(
        () => assert.fail("a broken migration was applied"),
        (caught: unknown) => caught as Error & { code?: string },
      );
      assert.match(
        error.message,
        /^acpkit: migration notes v2 \(half done\) failed: relation "nowhere" does not exist/,
      );
      assert.equal(error.code, "42P01");
      const tables = await pool.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
      );
      assert.deepEqual(
        tables.rows.map((row) => row.name),
        ["acpkit_schema_migrations", "notes"],
      );
      // Fixed, the next start applies it.
      const fixed = await migrate(pool, { sets: [{ feature: "notes", migrations: [v1, v2] }] });
      assert.deepEqual(
        fixed.applied.map((m) => m.version),
        [2],
      );
    } finally {
      await pool.end();
    }
  },
);

test(
  "a database migrated by a newer version is refused, before anything is applied",
  { skip: unavailable },
  async () => {
    const pool = await freshPool();
    try {
      await migrate(pool, { sets: [{ feature: "notes", migrations: [v1, v2, v3] }] });
      const error = await migrate(pool, {
        sets: [
          { feature: "other", migrations: [{ version: 1, name: "other", up: "CREATE TABLE other (id int)" }] },
          { feature: "notes", migrations: [v1, v2] },
        ],
      }).then(
        () => assert.fail("an older node migrated a newer database"),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof PostgresSchemaError);
      assert.equal(error.kind, "database_schema");
      assert.equal(error.feature, "notes");
      assert.match(
        error.message,
        /has migration notes v3 \(seed\) applied, but this version of acpkit knows notes migrations up to v2: the database was migrated by a newer acpkit\. Upgrade this node/,
      );
      const other = await pool.query("SELECT 1 FROM pg_tables WHERE tablename = 'other'");
      assert.equal(other.rows.length, 0, "the other feature was not migrated either");
      // A different build's v2 under the same number.
      const renamed = await migrate(pool, {
        sets: [{ feature: "notes", migrations: [v1, { ...v2, name: "something else" }, v3] }],
      }).then(
        () => assert.fail("a migration of another name was accepted"),
        (caught: unknown) => caught as Error,
      );
      assert.ok(renamed instanceof PostgresSchemaError);
      assert.match(renamed.message, /has notes v2 applied as 'add author', but this acpkit's v2 is 'something else'/);
    } finally {
      await pool.end();
    }
  },
);

test("changed SQL of an applied migration is a warning, not a refusal", { skip: unavailable }, async () => {
  const warnings: string[] = [];
  const pool = await freshPool({ ...silentLogger, warn: (message) => void warnings.push(message) });
  try {
    await migrate(pool, { sets: [{ feature: "notes", migrations: [v1] }] });
    await migrate(pool, { sets: [{ feature: "notes", migrations: [{ ...v1, up: `${String(v1.up)} ` }] }] });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /migration notes v1 \(create notes\) differs from the one applied/);
  } finally {
    await pool.end();
  }
});

test(
  "another process holding the lock too long: a clear error after lockTimeoutMs",
  { skip: unavailable },
  async () => {
    const pool = await freshPool();
    try {
      await pool.withClient(async (holder) => {
        await holder.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
        try {
          await assert.rejects(
            migrate(pool, { sets: [{ feature: "notes", migrations: [v1] }], lockTimeoutMs: 300 }),
            /another process has been migrating PostgreSQL at .* for over 300 ms/,
          );
        } finally {
          await holder.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]);
        }
      });
    } finally {
      await pool.end();
    }
  },
);

const CHILD = join(dirname(fileURLToPath(import.meta.url)), "testing", "migrate-child.js");

test("two processes starting at once: each migration is applied exactly once", { skip: unavailable }, async () => {
  const pool = await freshPool();
  try {
    const children = ["node-a", "node-b"].map((label) => {
      const child = spawn(process.execPath, [CHILD, pool.url, label], { stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const ready = new Promise<void>((resolve) => {
        const check = () => (stdout.includes("ready\n") ? resolve() : undefined);
        child.stdout.on("data", check);
      });
      const exited = once(child, "exit").then(([code]) => ({ code, stdout, stderr }));
      return { label, child, ready, exited };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.child.stdin.write("go\n");
    const results = await Promise.all(children.map((c) => c.exited));
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const reports = results.map(
      (result) => JSON.parse(result.stdout.split("\n")[1]!) as { applied: { version: number }[] },
    );
    const applied = reports.flatMap((report) => report.applied.map((m) => m.version)).sort();
    assert.deepEqual(applied, [1, 2], "each version applied by exactly one process");
    const log = await pool.query<{ version: number; label: string }>("SELECT version, label FROM race_log ORDER BY 1");
    assert.equal(log.rows.length, 2);
    assert.equal(log.rows[0]!.label, log.rows[1]!.label, "the first to take the lock applied both");
  } finally {
    await pool.end();
  }
});
