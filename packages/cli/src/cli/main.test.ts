/**
 * `acp --version` and `acp --help` as a user sees them (the built main module in a child process).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("./main.js", import.meta.url));
const CLI_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const acp = (...args: string[]) => execFileSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });

test("acp --version names both packages: the CLI's version, and the @acpkit/sdk it runs on with its location", () => {
  const cli = JSON.parse(readFileSync(`${CLI_ROOT}package.json`, "utf8")) as { version: string };
  const [first, second, ...rest] = acp("--version").split("\n");
  assert.equal(first, `@acpkit/cli ${cli.version}`);
  const match = /^@acpkit\/sdk (\S+) (.+)$/.exec(second ?? "");
  assert.ok(match, `second line: ${second}`);
  const location = match[2]!;
  const library = JSON.parse(readFileSync(`${location}/package.json`, "utf8")) as { name: string; version: string };
  assert.equal(library.name, "@acpkit/sdk");
  assert.equal(match[1], library.version);
  // In this repository the CLI's @acpkit/sdk is the repository root (its `file:../..` dependency).
  assert.equal(realpathSync(location), realpathSync(fileURLToPath(new URL("../../../../../", import.meta.url))));
  assert.deepEqual(rest, [""]);
});

test("acp --help: one row per command, the descriptions in one column, none over 120 characters", () => {
  const rows = acp("--help")
    .split("\n")
    .filter((line) => line.startsWith("  acp "));
  assert.ok(rows.length >= 12);
  const columns = rows.map((row) => /^ {2}\S.*?\S {2,}(?=\S)/.exec(row)?.[0].length);
  assert.equal(new Set(columns).size, 1, `descriptions start at columns ${JSON.stringify(columns)}`);
  for (const row of rows) assert.ok(row.length <= 120, `too long: ${row}`);
});

test("acp connect --help mentions no --agent: its URL is its argument", () => {
  const help = acp("connect", "--help");
  assert.match(help, /--token T +bearer token of the remote agent/);
  assert.doesNotMatch(help, /--agent/);
});
