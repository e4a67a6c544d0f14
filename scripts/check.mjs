#!/usr/bin/env node
/**
 * `npm test`: everything CI checks, with the time of each step and of the whole run: lint, formatting and the
 * generated code (at once: they read the sources and need no build; their output is printed whole as each ends),
 * one build, the API reports, then the unit and end-to-end lanes (scripts/test-lane.mjs), and last the browser lane
 * beside the packaging tests with the figures of docs/packaging.md (scripts/pack-check.mjs).
 * A failed check before the build stops the run (nothing to test yet); once built, every lane runs even when an
 * earlier one failed, so one run reports every failure. `.ci/run` runs exactly this after `npm ci`.
 */
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import process from "node:process";

/** Checks of the sources, run side by side before the build. */
const SOURCE_CHECKS = [
  ["lint", "lint"],
  ["formatting", "format:check"],
  ["generated code", "generate:check"],
];
/** Then one after the other. */
const STEPS = [
  ["build", "build"],
  ["API reports", "api:check"],
  ["unit tests", "test:unit"],
  ["end-to-end tests", "test:e2e"],
];
/**
 * Last, side by side: the browser lane (CPU: Chromium and the agents it drives, one file at a time) and the
 * packaging tests (mostly npm installing the packed tarballs: disk and registry waits), whose output is printed whole
 * when they end.
 */
const LAST = ["browser tests", "test:browser"];
const BESIDE_LAST = ["packaging tests", "test:packaging"];

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const started = Date.now();
const times = [];
const failed = [];
const failure = (what, script, status, signal) =>
  `${what} failed (npm run ${script}${signal ? `, ${signal}` : `, exit ${status}`})`;

/** Runs a step with its output held back, printed whole when it ends. */
function captured([what, script]) {
  return new Promise((resolve) => {
    const stepStarted = Date.now();
    const child = spawn(npm, ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("close", (status, signal) => {
      const took = seconds(Date.now() - stepStarted);
      times.push(`${what} ${took}`);
      const text = Buffer.concat(output).toString().trimEnd();
      process.stderr.write(`\n== ${what} (npm run ${script}): ${status === 0 ? "passed" : "FAILED"} in ${took}\n`);
      if (text) process.stderr.write(`${text}\n`);
      if (status !== 0) failed.push(failure(what, script, status, signal));
      resolve();
    });
  });
}

/** Runs a step with its output as it comes. */
function inherited([what, script]) {
  return new Promise((resolve) => {
    process.stderr.write(`\n== ${what} (npm run ${script})\n`);
    const stepStarted = Date.now();
    const child = spawn(npm, ["run", script], { stdio: "inherit" });
    child.on("close", (status, signal) => {
      times.push(`${what} ${seconds(Date.now() - stepStarted)}`);
      if (status !== 0) failed.push(failure(what, script, status, signal));
      resolve();
    });
  });
}

process.stderr.write(`\n== ${SOURCE_CHECKS.map(([what]) => what).join(", ")} (side by side)\n`);
await Promise.all(SOURCE_CHECKS.map(captured));
for (const step of STEPS) {
  if (failed.length > 0 && !step[1].startsWith("test:")) break;
  await inherited(step);
}
// Once built (a failed build or API check stopped the run above), the last two run whatever failed before.
if (times.some((time) => time.startsWith("unit tests"))) {
  process.stderr.write(
    `\n== ${BESIDE_LAST[0]} (npm run ${BESIDE_LAST[1]}), beside the ${LAST[0]}: printed when done\n`,
  );
  await Promise.all([inherited(LAST), captured(BESIDE_LAST)]);
}
const total = seconds(Date.now() - started);
const verdict = failed.length > 0 ? failed.join("; ") : "all checks passed";
process.stderr.write(`\n== ${verdict} in ${total}: ${times.join(", ")}\n`);
process.exitCode = failed.length > 0 ? 1 : 0;
