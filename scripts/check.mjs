#!/usr/bin/env node
/**
 * `npm test`: everything CI checks, in order, with the time of each step and of the whole run: lint, formatting, the
 * generated code, one build, the API reports, then the unit and end-to-end lanes (scripts/test-lane.mjs), the
 * packaging tests with the figures of docs/packaging.md (scripts/pack-check.mjs) and the browser lane.
 * A failed check before the build stops the run (nothing to test yet); once built, every lane runs even when an
 * earlier one failed, so one run reports every failure. `.ci/run` runs exactly this after `npm ci`.
 */
import { spawnSync } from "node:child_process";
import process from "node:process";

const STEPS = [
  ["lint", "lint"],
  ["formatting", "format:check"],
  ["generated code", "generate:check"],
  ["build", "build"],
  ["API reports", "api:check"],
  ["unit tests", "test:unit"],
  ["end-to-end tests", "test:e2e"],
  ["packaging tests", "test:packaging"],
  ["browser tests", "test:browser"],
];

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const started = Date.now();
const times = [];
const failed = [];
for (const [what, script] of STEPS) {
  if (failed.length > 0 && !script.startsWith("test:")) break;
  process.stderr.write(`\n== ${what} (npm run ${script})\n`);
  const stepStarted = Date.now();
  const result = spawnSync(npm, ["run", script], { stdio: "inherit" });
  times.push(`${what} ${seconds(Date.now() - stepStarted)}`);
  if (result.status !== 0)
    failed.push(
      `${what} failed (npm run ${script}${result.signal ? `, ${result.signal}` : `, exit ${result.status}`})`,
    );
}
const total = seconds(Date.now() - started);
const verdict = failed.length > 0 ? failed.join("; ") : "all checks passed";
process.stderr.write(`\n== ${verdict} in ${total}: ${times.join(", ")}\n`);
process.exitCode = failed.length > 0 ? 1 : 0;
