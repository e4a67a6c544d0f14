/**
 * An up-to-date tree is not built again: `npm start` and `npm run demo` check the programs' projects with
 * `tsc -b packages/cli` (about a second when nothing changed) instead of the whole build, and the CommonJS build
 * transpiles only what changed (it used to redo 250 modules every time, half a minute on a loaded machine).
 * Runs on the tree `npm test` has just built.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "../src/protocol/testing/repo.js";

const run = (script: string, ...args: string[]) =>
  execFileSync(process.execPath, [join(repoRoot, script), ...args], { cwd: repoRoot, encoding: "utf8" });

test("npm start and npm run demo build only the programs' projects, incrementally", () => {
  const { scripts } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  for (const name of ["start", "demo"]) {
    assert.match(scripts[name]!, /^tsc -b packages\/cli && node packages\/cli\/dist\/src\/cli\/main\.js /, name);
    assert.doesNotMatch(scripts[name]!, /npm run build|build-cjs/, name);
  }
});

test("on the built tree, tsc -b finds every project of the programs up to date: nothing would be rebuilt", () => {
  const out = run("node_modules/typescript/bin/tsc", "-b", "packages/cli", "--dry");
  assert.doesNotMatch(out, /would (build|update)/, out);
  assert.match(out, /packages\/cli\/tsconfig\.json' is up to date/);
});

test("on the built tree, the CommonJS build transpiles nothing", () => {
  assert.match(run("scripts/build-cjs.mjs"), /\(0 transpiled, \d+ up to date/);
});
