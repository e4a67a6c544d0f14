/**
 * The unit lane's groups (scripts/test-groups.mjs): which files may share a process, the modules that run them, and
 * that a group run by `node --test` runs every test of its files and fails when one of them fails.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../src/protocol/testing/repo.js";

interface TestGroups {
  groupable(source: string): boolean;
  groupFiles(
    files: string[],
    options: { dir: string; root: string; size: number; sourceOf: (file: string) => string },
  ): string[];
}
const groups = (await import(pathToFileURL(join(repoRoot, "scripts/test-groups.mjs")).href)) as TestGroups;

const PLAIN = 'import { test } from "node:test";\ntest("one", () => {});\n';

test("a file shares a process unless it has top-level hooks or changes process-wide state", () => {
  assert.equal(groups.groupable(PLAIN), true);
  assert.equal(groups.groupable(`${PLAIN}describe("d", () => {\n  before(() => {});\n});\n`), true);
  assert.equal(groups.groupable(`${PLAIN}test("t", (t) => { t.after(() => {}); });\n`), true);
  assert.equal(groups.groupable(`${PLAIN}if (process.env.X === "1") {}\n`), true);
  for (const alone of [
    "before(() => {});",
    "after(async () => {});",
    "beforeEach(() => {});",
    "afterEach(() => {});",
    'process.env.ACPKIT_X = "1";',
    'process.on("exit", () => {});',
    'process.chdir("/tmp");',
    't.mock.timers.enable({ apis: ["setTimeout"] });',
    "process.exitCode = 1; process.exit(1);",
  ]) {
    assert.equal(groups.groupable(`${PLAIN}${alone}\n`), false, alone);
  }
});

test("consecutive groupable files become modules of at most `size` imports, in order; the others stay files", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "acpkit-groups-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sources: Record<string, string> = {
    "a/1.test.js": PLAIN,
    "a/2.test.js": PLAIN,
    "a/3.test.js": PLAIN,
    "a/4.test.js": "before(() => {});\n",
    "b/5.test.js": PLAIN,
    "b/6.test.js": PLAIN,
  };
  const entries = groups.groupFiles(Object.keys(sources), {
    dir,
    root: "/repo",
    size: 2,
    sourceOf: (file) => sources[file]!,
  });
  assert.equal(entries.length, 4);
  const [first, second, alone, last] = entries as [string, string, string, string];
  assert.ok(first.startsWith(dir) && last.startsWith(dir));
  assert.equal(second, "a/3.test.js", "a run of one is not a group");
  assert.equal(alone, "a/4.test.js");
  const firstModule = readFileSync(first, "utf8");
  assert.match(firstModule, /^\/\/ a\/1\.test\.js, a\/2\.test\.js\n/);
  const imports = [...firstModule.matchAll(/^import "(.*)";$/gm)].map((m) => m[1]);
  assert.deepEqual(imports, [pathToFileURL("/repo/a/1.test.js").href, pathToFileURL("/repo/a/2.test.js").href]);
  assert.match(readFileSync(last, "utf8"), /b\/5\.test\.js.*\n.*5\.test\.js.*\n.*6\.test\.js/);
});

test("node --test runs every test of a group's files, and a failing file fails the group", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "acpkit-groups-run-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, body: string) => writeFileSync(join(dir, name), body);
  write("one.test.mjs", 'import { test } from "node:test";\ntest("one a", () => {});\ntest("one b", () => {});\n');
  write("two.test.mjs", 'import { test } from "node:test";\ntest("two", async () => { await 0; });\n');
  write("bad.test.mjs", 'import { test } from "node:test";\ntest("bad", () => { throw new Error("broken"); });\n');
  const run = (files: string[]) => {
    const [group] = groups.groupFiles(files, { dir, root: dir, size: 10, sourceOf: () => PLAIN });
    // Without the variable that tells a runner it is a file's child of another runner (this test's).
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    return spawnSync(process.execPath, ["--test", "--test-reporter=tap", group!], { encoding: "utf8", env });
  };
  const passing = run(["one.test.mjs", "two.test.mjs"]);
  assert.equal(passing.status, 0, passing.stdout);
  assert.match(passing.stdout, /^# pass 3$/m);
  for (const name of ["one a", "one b", "two"]) assert.match(passing.stdout, new RegExp(`ok \\d+ - ${name}$`, "m"));
  const failing = run(["one.test.mjs", "bad.test.mjs", "two.test.mjs"]);
  assert.equal(failing.status, 1);
  assert.match(failing.stdout, /^# pass 3$/m);
  assert.match(failing.stdout, /^# fail 1$/m);
  assert.match(failing.stdout, /not ok \d+ - bad$/m);
});
