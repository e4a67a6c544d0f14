/**
 * The figures of docs/packaging.md and README.md are the ones `npm run pack:check` measured (scripts/pack-figures.mjs):
 * the documented sections are where pack:check reads and writes them, and the comparison it fails on catches stale
 * figures (a file count off by more than 10%, another package count) while ignoring a few bytes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { repoRoot } from "../../src/protocol/testing/repo.js";

interface Row {
  package: string;
  tarballBytes: number;
  unpackedBytes: number;
  files: number;
  lines: number;
  packages: number;
  du: string;
  duBytes: number;
}
interface Figures {
  figuresTable(rows: Row[]): string;
  readmeSummary(rows: Row[]): string;
  compareFigures(documented: string, measured: string): string[];
}
const figures = (await import(pathToFileURL(join(repoRoot, "scripts/pack-figures.mjs")).href)) as Figures;

const rows: Row[] = [
  {
    package: "@acpkit/sdk",
    tarballBytes: 998_000,
    unpackedBytes: 7_970_000,
    files: 812,
    lines: 2,
    packages: 1,
    du: "9.7M",
    duBytes: 8_250_000,
  },
  {
    package: "@acpkit/cli",
    tarballBytes: 188_700,
    unpackedBytes: 639_700,
    files: 272,
    lines: 102,
    packages: 101,
    du: "41M",
    duBytes: 28_900_000,
  },
];
const change = (patch: Partial<Row>, at = 0) => rows.map((row, i) => (i === at ? { ...row, ...patch } : row));

function section(file: string, mark: string): string {
  const text = readFileSync(join(repoRoot, file), "utf8");
  const open = `<!-- ${mark} -->`;
  const close = `<!-- /${mark} -->`;
  assert.ok(text.includes(open) && text.includes(close), `${file} has its ${open} section`);
  return text.slice(text.indexOf(open) + open.length, text.indexOf(close));
}

test("the documented figures are in the sections pack:check writes, one row per package", () => {
  const table = section("docs/packaging.md", "pack:check figures");
  assert.match(table, /\| `@acpkit\/sdk` \|/);
  assert.match(table, /\| `@acpkit\/cli` \|/);
  assert.deepEqual(figures.compareFigures(table, table), []);
  assert.match(
    section("README.md", "pack:check summary"),
    /^1 package, [\d.]+ MiB installed; the programs: \d+ packages/,
  );
});

test("the comparison ignores a few bytes and prettier's padding, and catches stale figures", () => {
  const documented = figures.figuresTable(rows).replace(/ \| /g, "   |   ");
  assert.deepEqual(figures.compareFigures(documented, figures.figuresTable(change({ tarballBytes: 1_001_000 }))), []);
  assert.equal(figures.compareFigures(documented, figures.figuresTable(change({ files: 999 }))).length, 1);
  // A package more or less is the registry's resolution of the same ranges: ignored; a tenth more is caught.
  assert.equal(
    figures.compareFigures(documented, figures.figuresTable(change({ packages: 100, lines: 101 }, 1))).length,
    1,
  );
  assert.equal(figures.compareFigures(documented, figures.figuresTable(change({ packages: 130 }, 1))).length, 1);
  const summary = figures.readmeSummary(rows);
  assert.deepEqual(figures.compareFigures(summary, figures.readmeSummary(change({ duBytes: 8_300_000 }))), []);
  assert.equal(figures.compareFigures(summary, figures.readmeSummary(change({ duBytes: 11_000_000 }))).length, 1);
});
