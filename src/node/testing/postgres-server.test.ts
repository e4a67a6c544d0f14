import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { test } from "node:test";
import { postgresUnavailable, startTestPostgres } from "./postgres-server.js";

test("missing binaries: a reason to skip, or a failure where the tests must run", () => {
  const saved = { CI: process.env.CI, require: process.env.ACPKIT_REQUIRE_SERVICES };
  try {
    delete process.env.ACPKIT_REQUIRE_SERVICES;
    process.env.CI = "false";
    assert.match(
      postgresUnavailable("/nonexistent/bin") ?? "",
      /\/nonexistent\/bin\/initdb is missing \(apt-get install postgresql/,
    );
    process.env.ACPKIT_REQUIRE_SERVICES = "1";
    assert.throws(() => postgresUnavailable("/nonexistent/bin"), /PostgreSQL tests must run here/);
    delete process.env.ACPKIT_REQUIRE_SERVICES;
    process.env.CI = "true";
    if (process.platform === "linux")
      assert.throws(() => postgresUnavailable("/nonexistent/bin"), /PostgreSQL tests must run here \(CI on Linux\)/);
  } finally {
    for (const [key, value] of [
      ["CI", saved.CI],
      ["ACPKIT_REQUIRE_SERVICES", saved.require],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  }
});

const unavailable = postgresUnavailable();

test(
  "a server in a temporary directory: query, restart, stop and start, close removes it",
  { skip: unavailable },
  async () => {
    const server = await startTestPostgres({ settings: { max_connections: "20" } });
    try {
      if (process.getuid?.() === 0) assert.notEqual(statSync(server.dataDir).uid, 0, "not run as root");
      assert.equal((await server.psql("SHOW max_connections")).trim(), "20");
      const pid = async () => (await server.psql("SELECT pg_postmaster_start_time()")).trim();
      const before = await pid();
      await server.restart();
      assert.notEqual(await pid(), before, "a new postmaster");
      await server.stop("immediate");
      await assert.rejects(server.psql("SELECT 1"));
      await server.start();
      await server.createDatabase("other db");
      assert.equal((await server.psql("SELECT current_database()", "other db")).trim(), "other db");
    } finally {
      await server.close();
    }
    assert.equal(existsSync(server.dataDir), false);
    await server.close();
  },
);
