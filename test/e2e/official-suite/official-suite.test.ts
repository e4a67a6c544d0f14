/**
 * The official SDK's v0.12 test suite (class API), run from node_modules (`sdk-0.12`, never copied) with vitest,
 * against acpkit's root export and against the official 1.9.0. Issue 8: acpkit must pass 9 of 10, as 1.9.0 does,
 * and the tenth must fail on both for the same reason (0.12 passed extension method names to `extMethod` without
 * their `_` prefix; 1.x and acpkit pass the full name, as the spec says).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../../../src/protocol/testing/repo.js";

const run = promisify(execFile);

interface Outcome {
  title: string;
  status: string;
  failureMessages: string[];
}

/** Runs the suite with its `./acp.js` import pointed at `target`; returns each test's outcome. */
async function runSuite(target: string): Promise<Outcome[]> {
  const dir = mkdtempSync(join(tmpdir(), "acp-official-suite-"));
  const report = join(dir, "report.json");
  try {
    await run(
      process.execPath,
      [
        join(repoRoot, "node_modules/vitest/vitest.mjs"),
        "run",
        "--config",
        join(repoRoot, "test/e2e/official-suite/vitest.config.mjs"),
        "--reporter=json",
        `--outputFile=${report}`,
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, ACP_SUITE_TARGET: target, NO_COLOR: "1" },
        timeout: 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { code?: number }) => {
      if (error.code !== 1) throw error; // 1: some test failed, which is expected here
    });
    const json = JSON.parse(readFileSync(report, "utf8")) as { testResults: Array<{ assertionResults: Outcome[] }> };
    return json.testResults.flatMap((file) => file.assertionResults);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test(
  "the official v0.12 suite: 9 of 10 against acpkit and against 1.9.0, the same tenth failing for the same " + "reason",
  async () => {
    const acpkit = await runSuite(join(repoRoot, "dist/src/entries/index.js"));
    const official = await runSuite(join(repoRoot, "node_modules/sdk-1.9/dist/acp.js"));
    for (const [name, outcomes] of [
      ["acpkit", acpkit],
      ["official 1.9.0", official],
    ] as const) {
      assert.equal(outcomes.length, 10, `${name}: the suite has 10 tests`);
      const failed = outcomes.filter((o) => o.status !== "passed");
      assert.deepEqual(
        failed.map((o) => o.title),
        ["handles optional extension methods correctly"],
        `${name}: ${failed.map((o) => `${o.title}: ${o.failureMessages.join(" ")}`).join("\n")}`,
      );
      assert.match(
        failed[0]!.failureMessages.join("\n"),
        /expected 'example\.com\/ping' to be '_example\.com\/ping'/,
        name,
      );
    }
  },
);
