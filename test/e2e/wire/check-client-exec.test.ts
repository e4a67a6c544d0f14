/**
 * `acp check client` end to end on `acp exec`: it passes with a policy that grants what the checks ask for, and a
 * policy that refuses leaves those checks not exercised, not failed. Usage errors and a client that never starts its
 * agent. Real client processes, a real relay process as their agent, a real socket on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, describe, test } from "node:test";
import { ACP, acp, results, tempDir } from "./support.js";
import { ALWAYS_EXERCISED, ASKS_PERMISSION_FIRST } from "./check-client-scenarios.js";

/** A data directory of its own for each run (the runs go side by side). */
const dataDirs: string[] = [];
const ownData = () => {
  dataDirs.push(tempDir("acpkit-check-client-data-"));
  return { ACPKIT_DATA_DIR: dataDirs.at(-1)! };
};
after(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

// Two tests at a time: each is its own `acp check client` runs on its own processes; the longest waits are timers
// (a client that never starts its agent is waited for, then stopped), which the other test's run overlaps.
describe("acp check client on acp exec", { concurrency: 2 }, () => {
  test("acp check client passes on acp exec --permissions allow-all", { timeout: 400_000 }, async () => {
    const run = await acp(
      [
        "check",
        "client",
        "--format",
        "json",
        "--",
        process.execPath,
        ACP,
        "exec",
        "--permissions",
        "allow-all",
        "--agent",
        "{agent}",
        "hi",
      ],
      { env: ownData() },
    );
    const byId = results(run);
    assert.equal(run.code, 0, run.stdout);
    for (const id of ALWAYS_EXERCISED) assert.equal(byId.get(id)?.status, "passed", `${id}: ${byId.get(id)?.message}`);
    // acp exec answers permission requests by its non-interactive policy at once: nothing is pending to cancel.
    assert.equal(byId.get("permission.cancelled")!.status, "not-exercised");
    assert.match(byId.get("cancel.end-turn")!.message!, /exit code 130/);
  });

  test(
    "acp exec's default policy (allow-reads) refuses the writes and commands asked for: not exercised, not failed",
    { timeout: 200_000 },
    async () => {
      const run = await acp(
        [
          "check",
          "client",
          "--format",
          "json",
          "--only",
          [...ASKS_PERMISSION_FIRST, "fs.read"].join(","),
          "--",
          process.execPath,
          ACP,
          "exec",
          "--agent",
          "{agent}",
          "hi",
        ],
        { env: ownData() },
      );
      const byId = results(run);
      assert.equal(run.code, 0, run.stdout);
      assert.equal(byId.get("fs.read")?.status, "passed", byId.get("fs.read")?.message);
      for (const id of ASKS_PERMISSION_FIRST) {
        assert.equal(byId.get(id)?.status, "not-exercised", `${id}: ${byId.get(id)?.message}`);
        assert.match(
          byId.get(id)!.message!,
          /permission policy did not grant the permission to (write|run) .*\(selected acp-check-reject-once\); run the client with a policy that allows it/,
        );
      }
    },
  );

  test(
    "a client command without {agent} is a usage error; a client that never starts its agent exits 3",
    { timeout: 120_000 },
    async () => {
      const usage = await acp(["check", "client", "--", "my-client"]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /must contain \{agent\}/);
      const never = await acp([
        "check",
        "client",
        "--only",
        "initialize",
        "--startup-timeout",
        "2",
        "--",
        process.execPath,
        "-e",
        "setTimeout(() => {}, 60000)",
        "{agent}",
      ]);
      assert.equal(never.code, 3, never.stdout);
      assert.match(never.stdout, /the client did not start its agent \(the \{agent\} command\) within 2 s/);
      assert.match(never.stderr, /failed before starting its agent in every scenario \(1\), so nothing was checked/);
    },
  );

  test(
    "acp check client -- npx acp exec ...: npx finds nothing in the scenarios' fresh directories; the run says why",
    { timeout: 180_000 },
    async () => {
      // --no-install: npx must not fetch a registry package named acp (an unrelated one exists) in this test.
      const run = await acp([
        "check",
        "client",
        "--only",
        "initialize,fs.read",
        "--",
        "npx",
        "--no-install",
        "acp",
        "exec",
        "--agent",
        "{agent}",
        "hi",
      ]);
      assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
      assert.match(
        run.stderr,
        /acp check client: the client failed before starting its agent in every scenario \(2\), so nothing was checked\. Each scenario runs the client in a fresh temporary directory, and the command does not work there: npx looks for the program in that directory's node_modules/,
      );
      assert.match(run.stderr, /Give the installed program's path instead \(e\.g\. node_modules\/\.bin\/acp/);
    },
  );
});
