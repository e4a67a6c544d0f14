/**
 * `acp check agent` end to end: it passes on the reference agent and on an agent written with the official SDK,
 * and each deliberately broken agent (one fault each) is caught by the right check, with a message that says what
 * was wrong and what the spec requires. Real agent processes, real pipes.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { rmSync } from "node:fs";
import { ANY_CONTROL } from "../../../src/client/toolkit/hostile-text.js";
import { acp, faultyAgent, REFERENCE_AGENT, results, SDK_AGENT, tempDir } from "./support.js";

const dataDir = tempDir("acpkit-check-agent-data-");
const env = { ACPKIT_DATA_DIR: dataDir };
after(() => rmSync(dataDir, { recursive: true, force: true }));

// Two tests at a time: each is one or more `acp check` runs that wait on the agents they start (a mutation's
// cancel that never comes waits about 10 s) more than they compute; every run and assertion stays as it was.
describe("acp check agent", { concurrency: 2 }, () => {
  test(
    "acp check agent passes on the reference agent: every scenario exercised, none failed",
    { timeout: 300_000 },
    async () => {
      const run = await acp(["check", "agent", "--format", "json", "--", ...REFERENCE_AGENT], { env });
      const byId = results(run);
      assert.equal(run.code, 0, run.stdout);
      const statuses = Object.fromEntries([...byId].map(([id, r]) => [id, r.status]));
      for (const [id, status] of Object.entries(statuses))
        assert.ok(
          status === "passed" || ((id === "auth.unknown-method" || id === "auth.authenticate") && status === "skipped"),
          `${id}: ${status} ${byId.get(id)!.message ?? ""}`,
        );
      assert.ok(byId.size >= 23);
      assert.ok(byId.get("initialize")!.measurements.startupMs! > 0, "startup time measured");
      assert.ok(byId.get("cancel.prompt")!.measurements.cancelLatencyMs! >= 0, "cancel latency measured");
      assert.match(byId.get("session.load")!.message!, /updates replayed before the answer/);
      assert.equal(byId.get("session.list.paging")!.message, "51 sessions in 2 pages, each listed once");
    },
  );

  test(
    "acp check agent passes on an agent written with the official SDK; what it does not advertise is skipped",
    { timeout: 300_000 },
    async () => {
      const run = await acp(["check", "agent", "--format", "json", "--", ...SDK_AGENT]);
      const byId = results(run);
      assert.equal(run.code, 0, run.stdout);
      for (const id of ["session.load", "session.resume", "session.list", "session.close", "session.delete"])
        assert.equal(byId.get(id)!.status, "skipped", id);
      for (const id of [
        "prompt.stream",
        "cancel.prompt",
        "cancel.pending-request",
        "permission.request",
        "fs.read",
        "fs.write",
        "terminal.lifecycle",
      ])
        assert.equal(byId.get(id)!.status, "passed", `${id}: ${byId.get(id)!.message}`);
      assert.match(byId.get("cancel.request")!.warnings.join("\n"), /did not cancel the turn on \$\/cancel_request/);
    },
  );

  /** Each fault, the scenario that must catch it, the rule (if a rule does) and what the message must say. */
  const FAULTS: Array<[fault: string, scenario: string, rule: string | undefined, message: RegExp]> = [
    [
      "ignore-cancel",
      "cancel.prompt",
      "cancel.stop-reason",
      /answered stopReason "end_turn" \d+ ms after session\/cancel\. After session\/cancel the agent MUST answer the prompt with stopReason "cancelled"/,
    ],
    [
      "update-after-response",
      "prompt.turn",
      "prompt.update-after-response",
      /after it answered the turn's session\/prompt .* An agent MUST send every update of a turn before responding to session\/prompt/,
    ],
    [
      "invalid-frame",
      "prompt.turn",
      "schema",
      /invalid session\/update notification: at \$\.params\.update\.content\.text expected string, received number 42\. What a side sends MUST match the ACP schema/,
    ],
    [
      "relative-path",
      "fs.read",
      "path.absolute",
      /the agent asked the client for "acp-check-read\.txt"\. Paths MUST be absolute/,
    ],
    [
      "stdout-log",
      "initialize",
      "jsonrpc.message",
      /a line that is not JSON on its stdout: "\[faulty-agent\] starting up.*The agent MUST NOT write anything to its stdout that is not a valid ACP message/,
    ],
    [
      "never-release-terminal",
      "terminal.lifecycle",
      "terminal.release",
      /never released terminal .* The agent MUST release every terminal with terminal\/release/,
    ],
  ];

  for (const [fault, scenario, rule, message] of FAULTS) {
    test(`mutation: an agent that ${fault.replace(/-/g, " ")} fails ${scenario}`, { timeout: 120_000 }, async () => {
      const run = await acp(["check", "agent", "--only", scenario, "--format", "json", "--", ...faultyAgent(fault)]);
      assert.equal(run.code, 1, run.stdout);
      const result = results(run).get(scenario)!;
      assert.equal(result.status, "failed");
      assert.match(result.message!, message);
      if (rule)
        assert.ok(
          result.findings.some((f) => f.rule === rule),
          `finding ${rule} in ${JSON.stringify(result.findings)}`,
        );
    });
  }

  test(
    "an agent's terminal escapes (in a line that is not JSON, in its name) reach no terminal: table, progress, " +
      "JSON and JUnit carry no control character",
    { timeout: 120_000 },
    async () => {
      const table = await acp([
        "check",
        "agent",
        "--verbose",
        "--only",
        "initialize",
        "--",
        ...faultyAgent("escape-text"),
      ]);
      assert.equal(table.code, 1, table.stdout);
      assert.match(
        table.stdout,
        /FAIL +initialize[\s\S]*\[jsonrpc\.message\] The agent wrote a line that is not JSON[^\n]*\n +frame: \[faulty-agent\] starting up\n/,
      );
      assert.match(table.stdout, /faulty-agent[^\n]*escape-text/, "the agent's name is shown, without its escapes");
      assert.match(table.stderr, /acp check agent: initialize: failed \(/, "the progress line");
      assert.doesNotMatch(table.stdout, ANY_CONTROL);
      assert.doesNotMatch(table.stderr, ANY_CONTROL);
      const json = await acp([
        "check",
        "agent",
        "--only",
        "initialize",
        "--format",
        "json",
        "--",
        ...faultyAgent("escape-text"),
      ]);
      assert.doesNotMatch(json.stdout, ANY_CONTROL);
      const report = JSON.parse(json.stdout) as { peerInfo: { name: string } };
      assert.equal(
        report.peerInfo.name,
        "faulty-agent\u001b]52;c;cHduZWQ=\u0007\u009d0;owned\u0007\u001b[2J\u009b31m\u001b]0;title\u001b\\",
        "JSON keeps what the agent said, escaped",
      );
      const junit = await acp([
        "check",
        "agent",
        "--only",
        "initialize",
        "--format",
        "junit",
        "--",
        ...faultyAgent("escape-text"),
      ]);
      assert.match(junit.stdout, /<failure /);
      assert.doesNotMatch(junit.stdout, ANY_CONTROL);
    },
  );

  test(
    "mutation: an agent that answers a malformed line without an id fails robust.malformed-json, and the warning says so",
    { timeout: 120_000 },
    async () => {
      const run = await acp([
        "check",
        "agent",
        "--only",
        "robust.malformed-json",
        "--format",
        "json",
        "--",
        ...faultyAgent("parse-error-without-id"),
      ]);
      assert.equal(run.code, 1, run.stdout);
      const result = results(run).get("robust.malformed-json")!;
      assert.equal(result.status, "failed");
      assert.ok(
        result.findings.some((f) => f.rule === "jsonrpc.message"),
        JSON.stringify(result.findings),
      );
      assert.deepEqual(result.warnings, [
        'the agent answered a malformed line with -32700 Parse error, but without an "id": JSON-RPC 2.0 ' +
          'requires the answer to carry "id": null when the request\'s id could not be read (so the frame is not ' +
          "a valid message; see the jsonrpc.message finding)",
      ]);
    },
  );

  test(
    "exit codes and formats: usage 2, an agent that does not start 3, junit XML, expected failures, --list",
    { timeout: 120_000 },
    async () => {
      assert.equal((await acp(["check", "agent", "--bogus", "--", "x"])).code, 2);
      const typo = await acp(["check", "agent", "--only", "cancle", "--", "x"]);
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /no scenario matches "cancle"/);
      const missing = await acp(["check", "agent", "--", "/nonexistent/agent-binary"]);
      assert.equal(missing.code, 3);
      assert.match(missing.stderr, /the agent did not start: could not start the agent "\/nonexistent\/agent-binary"/);
      const list = await acp(["check", "agent", "--list"]);
      assert.match(
        list.stdout,
        /cancel\.prompt +session\/cancel: .*\n +https:\/\/agentclientprotocol\.com\/protocol\/prompt-turn#cancellation/,
      );

      const dir = tempDir("acpkit-check-expected-");
      const expected = join(dir, "expected.txt");
      writeFileSync(expected, "# known\nprompt.turn the fixture sends a late update on purpose\n");
      const xfail = await acp([
        "check",
        "agent",
        "--only",
        "prompt.turn",
        "--expected-failures",
        expected,
        "--",
        ...faultyAgent("update-after-response"),
      ]);
      assert.equal(xfail.code, 0, xfail.stdout);
      assert.match(
        xfail.stdout,
        /XFAIL prompt\.turn[\s\S]*expected to fail: the fixture sends a late update on purpose/,
      );
      const junit = await acp([
        "check",
        "agent",
        "--only",
        "prompt.turn,ext",
        "--format",
        "junit",
        "--",
        ...faultyAgent("update-after-response"),
      ]);
      assert.equal(junit.code, 1);
      assert.match(
        junit.stdout,
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="acp check agent" tests="2" failures="1"/,
      );
      assert.match(
        junit.stdout,
        /<testcase classname="acp\.check\.agent" name="prompt\.turn: [^"]*" time="[\d.]+">\n {6}<failure message="the agent broke a protocol rule: /,
      );
      rmSync(dir, { recursive: true, force: true });
    },
  );
});
