/**
 * Mutation tests of `acp check client`: each deliberately broken client (one fault each, test/e2e/fixtures) is caught
 * by the right check, with a message that says what was wrong and what the spec requires; and the report formats and
 * --expected-failures on a client.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { acp, faultyClient, results, tempDir } from "./support.js";

const FAULTS: Array<[fault: string, scenario: string, message: RegExp]> = [
  [
    "drop-early-updates",
    "updates.early",
    /the client lost the agent_message_chunk the agent sent for the new session just before answering session\/new .* a client MUST keep them for that session/,
  ],
  [
    "drop-late-updates",
    "updates.late",
    /the client lost the agent_message_chunk the agent sent right after answering session\/prompt \(its text acp-check-late-\w+ is not in the client's output, while the turn's own text is\).* a client MUST NOT lose it/,
  ],
  [
    "write-outside-cwd",
    "fs.outside-roots",
    /the client wrote .*fs\.outside-roots-outside\/acp-check-outside-\w+\.txt, outside the session's roots .* A client MUST refuse writes outside the session's roots/,
  ],
  [
    "never-answer-permission",
    "permission.options",
    /the client did not answer session\/request_permission within 5 s\. The client MUST answer every request of the agent/,
  ],
];

for (const [fault, scenario, message] of FAULTS) {
  test(`mutation: a client that ${fault.replace(/-/g, " ")} fails ${scenario}`, { timeout: 120_000 }, async () => {
    const run = await acp([
      "check",
      "client",
      "--only",
      scenario,
      "--timeout",
      "5",
      "--format",
      "json",
      "--",
      ...faultyClient(fault),
    ]);
    assert.equal(run.code, 1, run.stdout);
    const result = results(run).get(scenario)!;
    assert.equal(result.status, "failed");
    assert.match(result.message!, message);
  });
}

test(
  "client checks: --expected-failures (XFAIL exits 0, XPASS exits 1) and --format junit",
  { timeout: 200_000 },
  async () => {
    const dir = tempDir("acpkit-check-client-expected-");
    try {
      const client = faultyClient("drop-late-updates");
      const expected = join(dir, "expected.txt");
      writeFileSync(expected, "# known faults of the fixture\nupdates.late drops what comes after the response\n");
      const xfail = await acp([
        "check",
        "client",
        "--only",
        "updates.late",
        "--expected-failures",
        expected,
        "--",
        ...client,
      ]);
      assert.equal(xfail.code, 0, xfail.stdout);
      assert.match(
        xfail.stdout,
        /XFAIL updates\.late +[^\n]*\n +the client lost the agent_message_chunk [^\n]*\n +expected to fail: drops what comes after the response\n/,
      );
      assert.match(xfail.stdout, /^OK: 0 passed, 0 failed, 0 skipped, 0 not exercised, 1 expected failures in /m);

      writeFileSync(expected, "updates.early said to drop early updates too\n");
      const xpass = await acp([
        "check",
        "client",
        "--only",
        "updates.early",
        "--format",
        "json",
        "--expected-failures",
        expected,
        "--",
        ...client,
      ]);
      assert.equal(xpass.code, 1, xpass.stdout);
      assert.equal(results(xpass).get("updates.early")!.status, "unexpected-pass");

      const junit = await acp(["check", "client", "--only", "updates", "--format", "junit", "--", ...client]);
      assert.equal(junit.code, 1, junit.stdout);
      assert.match(
        junit.stdout,
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="acp check client" tests="2" failures="1" errors="0" skipped="0"/,
      );
      assert.match(
        junit.stdout,
        /<testcase classname="acp\.check\.client" name="updates\.early: [^"]*" time="[\d.]+">\n {6}<system-out>the early update was kept<\/system-out>\n {4}<\/testcase>/,
      );
      assert.match(
        junit.stdout,
        /<testcase classname="acp\.check\.client" name="updates\.late: [^"]*" time="[\d.]+">\n {6}<failure message="the client lost the agent_message_chunk [^"]*" type="updates\.late">[^<]*spec: https:\/\/agentclientprotocol\.com\/protocol\/prompt-turn#cancellation<\/failure>/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
