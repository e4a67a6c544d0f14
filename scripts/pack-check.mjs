/**
 * `npm run pack:check`: the newcomer's install, end to end. Runs the packaging tests (test/e2e/packaging, built):
 * the library tarball alone, offline, into an empty project (packed-library.test.ts), and the library and CLI
 * tarballs together from an empty npm cache, with the registry for the CLI's other dependencies
 * (packed-cli.test.ts); both compile and run the examples against what they installed. Then prints what each
 * install brought, and checks that the figures in docs/packaging.md and README.md are these (within 10% for sizes
 * and file counts, exactly for package counts). Exits non-zero if anything fails.
 *
 *   npm run pack:check                          (builds first)
 *   npm run test:packaging                      the same on the last build (a step of npm test, so of CI)
 *   node scripts/pack-check.mjs --update-docs   writes the figures into docs/packaging.md and README.md
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { compareFigures, figuresTable, readmeSummary } from "./pack-figures.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const updateDocs = process.argv.includes("--update-docs");
/** A child must not take this script's npm lifecycle configuration (`npm run` sets npm_* variables). */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

const ORDER = ["@acpkit/sdk", "@acpkit/cli"];

const MARKS = {
  "docs/packaging.md": ["<!-- pack:check figures -->", "<!-- /pack:check figures -->", figuresTable],
  "README.md": ["<!-- pack:check summary -->", "<!-- /pack:check summary -->", readmeSummary],
};

/** The text between a document's marks. */
function marked(text, [open, close], file) {
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`${file} has no ${open} ... ${close} section`);
  return { start: start + open.length, end };
}

/** The packaging tests, file by file (a directory would make `node --test` run the support modules too). */
const packagingDir = join(root, "dist/test/e2e/packaging");
if (!existsSync(packagingDir)) {
  process.stderr.write(
    `pack:check: ${packagingDir} is missing: build first (npm run build), or run npm run pack:check\n`,
  );
  process.exit(1);
}
const packagingTests = readdirSync(packagingDir)
  .filter((name) => name.endsWith(".test.js"))
  .sort()
  .map((name) => join(packagingDir, name));

const dir = mkdtempSync(join(tmpdir(), "acpkit-pack-check-"));
const reportFile = join(dir, "figures.jsonl");
let failed = false;
try {
  execFileSync(process.execPath, ["--test", "--test-concurrency=1", "--test-timeout=900000", ...packagingTests], {
    cwd: root,
    env: { ...env, ACPKIT_PACK_TEST: "1", ACPKIT_PACK_REGISTRY: "1", ACPKIT_PACK_REPORT: reportFile },
    stdio: "inherit",
  });
  const rows = readFileSync(reportFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .sort((a, b) => ORDER.indexOf(a.package) - ORDER.indexOf(b.package));
  process.stdout.write(`\n${figuresTable(rows)}\n\nREADME: ${readmeSummary(rows)}\n`);
  for (const [file, marks] of Object.entries(MARKS)) {
    const path = join(root, file);
    const text = readFileSync(path, "utf8");
    const { start, end } = marked(text, marks, file);
    const fresh = marks[2](rows);
    if (updateDocs) {
      const padded = file.endsWith("packaging.md") ? `\n\n${fresh}\n\n` : fresh;
      writeFileSync(path, text.slice(0, start) + padded + text.slice(end));
      execFileSync(process.execPath, [join(root, "node_modules/prettier/bin/prettier.cjs"), "--write", path]);
      process.stdout.write(`pack:check: wrote the figures into ${file}\n`);
      continue;
    }
    const differences = compareFigures(text.slice(start, end), fresh);
    if (differences.length > 0) {
      failed = true;
      process.stderr.write(
        `pack:check: the figures in ${file} are not what this run measured:\n  ${differences.join("\n  ")}\n` +
          "Update them with: node scripts/pack-check.mjs --update-docs\n",
      );
    }
  }
} catch (error) {
  failed = true;
  process.stderr.write(`pack:check failed: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
