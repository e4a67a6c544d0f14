import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type * as pg from "pg";
import { OptionalDependencyMissingError, PG_DEPENDENCY } from "../optional-dependency.js";
import type { PgClient, PgModule, PgPool, PgPoolClient } from "./pg-types.js";
import { loadPg } from "./pool.js";

// Compile-time: the real pg (its @types/pg declarations) fits the structural shapes the library declares; a change of
// pg's API that breaks the library fails the build here. These are assignments, checked by tsc, run on real objects.
const structural = {
  pool: (pool: pg.Pool): PgPool => pool,
  poolClient: (client: pg.PoolClient): PgPoolClient => client,
  client: (client: pg.Client): PgClient => client,
  module: (module: { Pool: typeof pg.Pool; Client: typeof pg.Client }): PgModule => module,
};

test("pg's own objects are the library's structural types", async () => {
  const real = (await import("pg")).default;
  const pool = new real.Pool({ max: 1 });
  const client = new real.Client({});
  assert.equal(structural.pool(pool), pool);
  assert.equal(structural.client(client), client);
  assert.equal(structural.module(real).Pool, real.Pool);
  assert.equal(typeof structural.poolClient, "function");
  await pool.end();
});

test("loadPg gives the Pool and Client constructors of the installed pg", async () => {
  const module = await loadPg();
  const real = (await import("pg")).default;
  assert.equal(module.Pool, real.Pool);
  assert.equal(module.Client, real.Client);
});

test("without pg, the error says what to install", () => {
  assert.equal(
    new OptionalDependencyMissingError(PG_DEPENDENCY).message,
    "acpkit: PostgreSQL support needs the 'pg' package: npm install pg@8",
  );
});

test("the declarations emitted for src/node/postgres never refer to pg's own types", () => {
  const dist = dirname(fileURLToPath(import.meta.url));
  const declarations = readdirSync(dist).filter((name) => name.endsWith(".d.ts") && !name.includes(".test."));
  assert.ok(declarations.length >= 8, declarations.join(", "));
  for (const name of declarations) {
    const text = readFileSync(join(dist, name), "utf8");
    assert.doesNotMatch(text, /(?:from\s*|import\s*\(\s*)["'](?:pg|@types\/pg)(?:\/[^"']*)?["']/, name);
  }
});
