/**
 * `acp check agent` options end to end: `--prompts` (another agent's wording exercises it, `null` leaves a scenario
 * not exercised, and an agent without the slash commands is "not exercised", never passed), `--skip`, an expected
 * failure that passes (XPASS: the run fails), and the scenario ids of both checkers pinned. Real agent processes.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { acp, configurableAgent, faultyAgent, results, tempDir } from "./support.js";

const dir = tempDir("acpkit-check-options-");
after(() => rmSync(dir, { recursive: true, force: true }));

/** The scenarios that ask the agent to act with the slash commands, and that the plain-worded agent can do. */
const WORDED = ["prompt.stream", "cancel.prompt", "cancel.request", "fs.read"];
const plainAgent = configurableAgent("--wording", "plain");

// Two tests at a time: each is its own `acp check` runs on its own agent processes and files under `dir`; much of a
// run is waiting on the agent (a turn of /slow, a cancel), which the other test's run overlaps.
describe("acp check agent options", { concurrency: 2 }, () => {
  test(
    "--prompts: an agent with its own wording is exercised and passes; a null entry is not exercised",
    { timeout: 200_000 },
    async () => {
      const prompts = join(dir, "prompts.json");
      writeFileSync(
        prompts,
        JSON.stringify({
          "prompt.stream": "please stream {count} chunks",
          "cancel.prompt": "please wait {ms} ms",
          "cancel.request": "please wait {ms} ms",
          "fs.read": "please read the file {path}",
          "fs.write": null,
        }),
      );
      const run = await acp([
        "check",
        "agent",
        "--format",
        "json",
        "--only",
        [...WORDED, "fs.write"].join(","),
        "--prompts",
        prompts,
        "--",
        ...plainAgent,
      ]);
      const byId = results(run);
      assert.equal(run.code, 0, run.stdout);
      for (const id of WORDED) assert.equal(byId.get(id)?.status, "passed", `${id}: ${byId.get(id)?.message}`);
      assert.match(byId.get("prompt.stream")!.message!, /^50 chunks, all before the response$/);
      assert.match(byId.get("cancel.prompt")!.message!, /answered "cancelled" \d+ ms after session\/cancel/);
      assert.equal(byId.get("fs.write")!.status, "not-exercised");
      assert.equal(byId.get("fs.write")!.message, "no prompt for fs.write (set to null in --prompts)");
    },
  );

  test(
    "an agent without the slash commands: what needs them is not exercised (never passed, never failed), with the hint",
    { timeout: 200_000 },
    async () => {
      const run = await acp([
        "check",
        "agent",
        "--format",
        "json",
        "--only",
        [...WORDED, "session.close", "prompt.turn"].join(","),
        "--",
        ...plainAgent,
      ]);
      const byId = results(run);
      assert.equal(run.code, 0, run.stdout);
      assert.equal(byId.get("prompt.turn")!.status, "passed", byId.get("prompt.turn")!.message);
      for (const id of WORDED) {
        assert.equal(byId.get(id)?.status, "not-exercised", `${id}: ${byId.get(id)?.status} ${byId.get(id)?.message}`);
        assert.match(
          byId.get(id)!.message!,
          /asked with the reference agent's wording "\/(stream|slow|read) \{\w+\}"; give this agent's wording with --prompts FILE/,
        );
      }
      // Its turn ends by itself: cancelling it then would wrongly blame the agent's end_turn.
      assert.match(byId.get("cancel.prompt")!.message!, /^the turn ended by itself before it could be cancelled/);
    },
  );

  test("--prompts with an unknown scenario id or a non-string prompt is a usage error (exit 2)", async () => {
    const typo = join(dir, "typo.json");
    writeFileSync(typo, JSON.stringify({ "prompt.strem": "x" }));
    const run = await acp(["check", "agent", "--prompts", typo, "--", ...plainAgent]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown scenario id "prompt\.strem"/);
    const wrong = join(dir, "wrong.json");
    writeFileSync(wrong, JSON.stringify({ "fs.read": 7 }));
    const second = await acp(["check", "agent", "--prompts", wrong, "--", ...plainAgent]);
    assert.equal(second.code, 2);
    assert.match(second.stderr, /the prompt of "fs\.read" must be a string or null/);
  });

  test(
    "--skip leaves scenarios out (a group by its prefix); --only and --skip combine",
    { timeout: 200_000 },
    async () => {
      const run = await acp([
        "check",
        "agent",
        "--format",
        "json",
        "--only",
        "robust,ext.unknown,prompt.turn",
        "--skip",
        "robust.batch,ext",
        "--",
        ...plainAgent,
      ]);
      const byId = results(run);
      assert.equal(run.code, 0, run.stdout);
      assert.deepEqual([...byId.keys()].sort(), [
        "prompt.turn",
        "robust.invalid-params",
        "robust.malformed-json",
        "robust.unknown-method",
      ]);
      const typo = await acp(["check", "agent", "--skip", "robsut", "--", ...plainAgent]);
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /no scenario matches "robsut"/);
    },
  );

  test(
    "an expected failure that passes is XPASS and fails the run; one not exercised keeps its status with a warning",
    { timeout: 200_000 },
    async () => {
      const expected = join(dir, "expected.txt");
      writeFileSync(
        expected,
        "prompt.turn said to fail, but this agent is fine\nprompt.stream needs a wording this run does not give\n",
      );
      const json = await acp([
        "check",
        "agent",
        "--format",
        "json",
        "--only",
        "prompt",
        "--expected-failures",
        expected,
        "--",
        ...plainAgent,
      ]);
      assert.equal(json.code, 1, json.stdout);
      const byId = results(json);
      assert.equal(byId.get("prompt.turn")!.status, "unexpected-pass");
      assert.match(
        byId.get("prompt.turn")!.message!,
        /^passed \(stopReason end_turn; .*\), but --expected-failures lists it as failing \("said to fail, but this agent is fine"\): the fault is fixed; remove its line from the list$/,
      );
      assert.equal(byId.get("prompt.stream")!.status, "not-exercised");
      assert.match(
        byId.get("prompt.stream")!.warnings.join("\n"),
        /--expected-failures lists it as failing \("needs a wording this run does not give"\), but it was not exercised: the list was not confirmed/,
      );
      assert.equal((JSON.parse(json.stdout) as { summary: Record<string, number> }).summary["unexpected-pass"], 1);

      const table = await acp([
        "check",
        "agent",
        "--only",
        "prompt.turn",
        "--expected-failures",
        expected,
        "--",
        ...plainAgent,
      ]);
      assert.equal(table.code, 1);
      assert.match(
        table.stdout,
        /XPASS prompt\.turn +session\/prompt[^\n]*\n +passed .* remove its line from the list\n +expected to fail: said to fail, but this agent is fine\n/,
      );
      assert.match(
        table.stdout,
        /^FAILED: 0 passed, 0 failed, 0 skipped, 0 not exercised, 1 listed as expected failures but passed in /m,
      );

      const junit = await acp([
        "check",
        "agent",
        "--only",
        "prompt.turn",
        "--format",
        "junit",
        "--expected-failures",
        expected,
        "--",
        ...plainAgent,
      ]);
      assert.equal(junit.code, 1);
      assert.match(junit.stdout, /<testsuites name="acp check agent" tests="1" failures="1"/);
      assert.match(junit.stdout, /<failure message="passed [^"]*" type="unexpected-pass">/);

      const stillFailing = join(dir, "still.txt");
      writeFileSync(stillFailing, "prompt.turn the fixture sends a late update on purpose\n");
      const xfail = await acp([
        "check",
        "agent",
        "--only",
        "prompt.turn",
        "--format",
        "json",
        "--expected-failures",
        stillFailing,
        "--",
        ...faultyAgent("update-after-response"),
      ]);
      assert.equal(xfail.code, 0, xfail.stdout);
      assert.equal(results(xfail).get("prompt.turn")!.status, "expected-failure");
    },
  );

  // The reference agent's paging (50 a page, 51 sessions in 2 pages, passed) is asserted by the whole run in
  // check-agent.test.ts, which runs session.list.paging on it anyway: a second run of it here read the same result.

  const PAGING: Array<[fault: string, status: string, message: RegExp]> = [
    ["none", "passed", /^2 sessions in 2 pages, each listed once$/],
    [
      "ignore-cursor",
      "failed",
      /session\/list returned session configurable-1 twice across its pages\. A cursor MUST continue where the previous page ended\./,
    ],
    [
      "skip-one",
      "failed",
      /following nextCursor through 2 pages, session\/list never returned 1 of the 3 sessions created in .* \(e\.g\. configurable-2\)\. Each page MUST continue where the previous one ended, without skipping sessions\./,
    ],
  ];

  for (const [fault, status, message] of PAGING) {
    test(
      `session.list.paging with a page of one session and cursor fault "${fault}": ${status}`,
      { timeout: 120_000 },
      async () => {
        const run = await acp([
          "check",
          "agent",
          "--format",
          "json",
          "--only",
          "session.list.paging",
          "--",
          ...configurableAgent("--list-page", "1", "--list-fault", fault),
        ]);
        const result = results(run).get("session.list.paging")!;
        assert.equal(run.code, status === "passed" ? 0 : 1, run.stdout);
        assert.equal(result.status, status);
        assert.match(result.message!, message);
      },
    );
  }

  test(
    "session.list.paging: an agent that lists everything in one page leaves the cursor not exercised",
    { timeout: 120_000 },
    async () => {
      const run = await acp([
        "check",
        "agent",
        "--format",
        "json",
        "--only",
        "session.list.paging",
        "--",
        ...configurableAgent("--list-page", "1000"),
      ]);
      assert.equal(run.code, 0, run.stdout);
      const result = results(run).get("session.list.paging")!;
      assert.equal(result.status, "not-exercised");
      assert.equal(
        result.message,
        "session/list returned all 60 sessions of one directory in a single page: its cursor could not be exercised",
      );
    },
  );

  /**
   * The scenario ids are an interface: users put them in --only, --skip, --expected-failures and --prompts files, and
   * CI reports key on them. Adding a scenario adds its id here; renaming or removing one breaks those files.
   */
  const AGENT_IDS = [
    "initialize",
    "initialize.version",
    "auth.unknown-method",
    "auth.authenticate",
    "session.new",
    "prompt.turn",
    "prompt.stream",
    "session.load",
    "session.resume",
    "session.list",
    "session.list.paging",
    "session.close",
    "session.delete",
    "cancel.prompt",
    "cancel.pending-request",
    "cancel.request",
    "permission.request",
    "fs.read",
    "fs.write",
    "terminal.lifecycle",
    "ext.unknown",
    "robust.unknown-method",
    "robust.invalid-params",
    "robust.malformed-json",
    "robust.batch",
  ];
  const CLIENT_IDS = [
    "initialize",
    "fs.read",
    "fs.write",
    "fs.outside-roots",
    "terminal.lifecycle",
    "terminal.output-limit",
    "terminal.outside-roots",
    "permission.options",
    "permission.cancelled",
    "updates.early",
    "updates.late",
    "cancel.end-turn",
    "robust.large-frame",
    "robust.non-json",
    "robust.crash-mid-frame",
    "robust.slow-initialize",
    "process.no-leftover",
  ];

  test("the scenario ids of both checkers are stable (pinned), each with a spec link", async () => {
    for (const [kind, pinned] of [
      ["agent", AGENT_IDS],
      ["client", CLIENT_IDS],
    ] as const) {
      const list = await acp(["check", kind, "--list"]);
      assert.equal(list.code, 0);
      const lines = list.stdout.trimEnd().split("\n");
      const ids = lines.filter((line) => !line.startsWith(" ")).map((line) => line.split(" ")[0]);
      assert.deepEqual(ids, pinned, `acp check ${kind} --list`);
      const links = lines.filter((line) => line.startsWith(" ")).map((line) => line.trim());
      assert.equal(links.length, pinned.length);
      for (const link of links)
        assert.match(link, /^https:\/\/agentclientprotocol\.com\/protocol\/[a-z-]+(#[a-z0-9-]+)?$/);
    }
  });
});
