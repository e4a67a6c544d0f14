/**
 * An agent built with `toolkitAgent`'s defaults passes `acp check agent`: it advertises only what its (absent) store
 * can keep, so session.load and session.resume, which load a session in a new process, are skipped as not
 * advertised instead of failing (issue 14). The examples' toolkit agent, with a `FileSessionStore`, passes them
 * (test/e2e/examples.test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { acp, FIXTURES, results } from "./support.js";

test(
  "a toolkitAgent on its defaults passes acp check agent: load and resume not advertised, so skipped",
  { timeout: 300_000 },
  async () => {
    const run = await acp([
      "check",
      "agent",
      "--format",
      "json",
      "--",
      process.execPath,
      join(FIXTURES, "toolkit-defaults-agent.js"),
      "--serve",
    ]);
    const byId = results(run);
    const failed = [...byId]
      .filter(([, result]) => result.status === "failed")
      .map(([id, result]) => `${id}: ${result.message}`);
    assert.deepEqual(failed, []);
    assert.equal(run.code, 0, run.stderr);
    for (const id of ["session.load", "session.resume", "session.list"])
      assert.equal(byId.get(id)?.status, "skipped", id);
  },
);
