#!/usr/bin/env node
/**
 * Runs one lane of the test suite on the built outputs (`npm run build` first):
 *
 *   unit     the tests beside the code: dist/src and packages/cli/dist/src       (npm run test:unit)
 *   e2e      the repository's tests: real processes, sockets and peers, dist/test (npm run test:e2e), but the
 *            packaging tests (dist/test/e2e/packaging), which scripts/pack-check.mjs runs (npm run test:packaging)
 *   browser  the inspector's page in a real browser (chromium), dist/test/e2e/inspect (npm run test:browser)
 *
 * Only files named `*.test.js` are run, listed here one by one: never a directory, from which `node --test` would
 * also run fixtures and support modules. The concurrency is explicit, sized for a 2-core machine (override with
 * ACPKIT_TEST_CONCURRENCY); extra arguments go to `node --test` (e.g. `--test-name-pattern=...`).
 *
 * A file whose opening comment holds the line ` * Test lane: solo` measures the machine (memory bounds, hundreds of
 * connections, floods): it runs after the others, alone, so that no other file's load decides its verdict. One with
 * ` * Test lane: first` is long (a real service, a property sweep): it starts before the others, so that it does not
 * start late and end the lane alone.
 *
 * In the unit lane, small files share a process, ten at most (./test-groups.mjs says which may);
 * ACPKIT_TEST_UNGROUPED=1 runs each file in its own.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { groupFiles } from "./test-groups.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Each lane: where its tests are, and how many test files run at once. */
const LANES = {
  // Mostly CPU-bound, in-process, but a tenth of the files wait on a PostgreSQL or child processes: measured on
  // 2 cores, two at once left a third of the CPU idle; three fill it.
  // Small files share a process, ten at most (scripts/test-groups.mjs).
  unit: { roots: ["dist/src", "packages/cli/dist/src"], concurrency: 3, groupSize: 10 },
  // Mostly waiting on child processes, sockets and timers: measured on 2 cores, two files at once used 1.3 cores on
  // average; three fill them. Files that measure the machine run alone afterwards (see above).
  // The packaging tests pack and install tarballs: scripts/pack-check.mjs runs them once, with the registry.
  // A file's tests together get 15 minutes (node --test applies --test-timeout to each file as a whole too); each
  // test has its own, shorter bound.
  e2e: {
    roots: ["dist/test"],
    exclude: ["dist/test/e2e/inspect", "dist/test/e2e/packaging"],
    concurrency: 3,
    timeoutMs: 900_000,
  },
  // A browser and an agent per file, each taking both cores at times: one file at a time, long timeouts.
  browser: { roots: ["dist/test/e2e/inspect"], concurrency: 1, timeoutMs: 900_000 },
};

/** Every `*.test.js` under `dir`, sorted. */
function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
      return entry.name.endsWith(".test.js") ? [path] : [];
    })
    .sort();
}

const [name, ...nodeArgs] = process.argv.slice(2);
const lane = LANES[name];
if (lane === undefined) {
  process.stderr.write(`usage: node scripts/test-lane.mjs ${Object.keys(LANES).join("|")} [node --test options]\n`);
  process.exit(2);
}
const excluded = (file) => (lane.exclude ?? []).some((dir) => file.startsWith(`${dir}/`));
const files = lane.roots
  .flatMap((dir) => testFiles(join(root, dir)))
  .map((file) => relative(root, file))
  .filter((file) => !excluded(file));
if (files.length === 0) {
  process.stderr.write(`test:${name}: no *.test.js under ${lane.roots.join(", ")}: run npm run build first\n`);
  process.exit(1);
}
/** The lane its opening comment asks for: "solo" or "first" (see the file comment), else undefined. */
const marker = (file) =>
  /^ \* Test lane: (solo|first)$/m.exec(readFileSync(join(root, file), "utf8").slice(0, 4000))?.[1];
const markers = new Map(files.map((file) => [file, marker(file)]));
const soloFiles = files.filter((file) => markers.get(file) === "solo");
// Long files start first, so that none of them starts late and ends the lane alone.
/** Where each batch's reporter writes its files' times (see scripts/test-file-times.mjs), and the lane's groups. */
const timesDir = mkdtempSync(join(tmpdir(), "acpkit-lane-times-"));
const unmarked = files.filter((file) => markers.get(file) === undefined);
const sharedFiles = [
  ...files.filter((file) => markers.get(file) === "first"),
  ...(lane.groupSize && !process.env.ACPKIT_TEST_UNGROUPED
    ? groupFiles(unmarked, {
        dir: timesDir,
        root,
        size: lane.groupSize,
        sourceOf: (file) => readFileSync(join(root, file), "utf8"),
      })
    : unmarked),
];
const concurrency = Number(process.env.ACPKIT_TEST_CONCURRENCY) || lane.concurrency;
let batches = 0;

/** Runs `node --test` on `batch` at `at` files at once; resolves with its exit code. */
function run(batch, at) {
  if (batch.length === 0) return Promise.resolve(0);
  const args = [
    "--enable-source-maps",
    "--test",
    "--test-reporter=tap",
    "--test-reporter-destination=stdout",
    `--test-reporter=${join(root, "scripts/test-file-times.mjs")}`,
    `--test-reporter-destination=${join(timesDir, `batch-${++batches}.tsv`)}`,
    `--test-concurrency=${at}`,
    `--test-timeout=${lane.timeoutMs ?? 300_000}`,
    ...nodeArgs,
    ...batch,
  ];
  const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit" });
  // Ctrl-C reaches the runner through the terminal; SIGTERM from a CI is passed on.
  const onTerm = () => child.kill("SIGTERM");
  process.on("SIGTERM", onTerm);
  return new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      process.off("SIGTERM", onTerm);
      resolve(code ?? (signal ? 1 : 0));
    }),
  );
}

const started = Date.now();
const sharedCode = await run(sharedFiles, concurrency);
const soloCode = await run(soloFiles, 1);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
process.stderr.write(slowestFiles(8));
rmSync(timesDir, { recursive: true, force: true });
const groups = sharedFiles.filter((entry) => entry.startsWith(timesDir)).length;
process.stderr.write(
  `test:${name}: ${files.length} files (${files.length - soloFiles.length} at concurrency ${concurrency}` +
    `${groups > 0 ? `, in ${sharedFiles.length} processes: ${groups} groups of small files` : ""}, ` +
    `${soloFiles.length} alone), ${seconds} s\n`,
);
process.exitCode = sharedCode || soloCode;

/** The `count` slowest files of the lane, one per line, for whoever wants the lane faster. */
function slowestFiles(count) {
  const lines = readdirSync(timesDir)
    .filter((name) => name.endsWith(".tsv"))
    .flatMap((name) => readFileSync(join(timesDir, name), "utf8").split("\n").filter(Boolean));
  // A group is named by its files' folder and count (its first line lists them).
  const label = (file) => {
    if (!file.startsWith(timesDir)) return relative(root, file);
    const members = readFileSync(file, "utf8").split("\n")[0].slice(3).split(", ");
    return `${dirname(members[0])}/ (${members.length} files in one process)`;
  };
  const rows = lines
    .map((line) => line.split("\t"))
    .map(([time, file]) => ({ time: Number(time), file: label(file) }))
    .sort((a, b) => b.time - a.time)
    .slice(0, count);
  if (rows.length === 0) return "";
  const alone = (file) => (soloFiles.includes(file) ? " (alone)" : "");
  return `test:${name}: slowest files: ${rows.map(({ time, file }) => `${file}${alone(file)} ${time} s`).join(", ")}\n`;
}
