/**
 * Mutation tests of `acp check client`: each deliberately broken client (one fault each, test/e2e/fixtures) is caught
 * by the right check, with a message that says what was wrong and what the spec requires.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { acp, faultyClient, results } from "./support.js";

const FAULTS: Array<[fault: string, scenario: string, message: RegExp]> = [
  ["drop-early-updates", "updates.early", /the client lost the agent_message_chunk the agent sent for the new session just before answering session\/new .* a client MUST keep them for that session/],
  ["drop-late-updates", "updates.late", /the client lost the agent_message_chunk the agent sent right after answering session\/prompt \(its text acp-check-late-\w+ is not in the client's output, while the turn's own text is\).* a client MUST NOT lose it/],
  ["write-outside-cwd", "fs.outside-roots", /the client wrote .*fs\.outside-roots-outside\/acp-check-outside-\w+\.txt, outside the session's roots .* A client MUST refuse writes outside the session's roots/],
  ["never-answer-permission", "permission.options", /the client did not answer session\/request_permission within 5 s\. The client MUST answer every request of the agent/],
];

for (const [fault, scenario, message] of FAULTS) {
  test(`mutation: a client that ${fault.replace(/-/g, " ")} fails ${scenario}`, { timeout: 120_000 }, async () => {
    const run = await acp(["check", "client", "--only", scenario, "--timeout", "5", "--format", "json", "--", ...faultyClient(fault)]);
    assert.equal(run.code, 1, run.stdout);
    const result = results(run).get(scenario)!;
    assert.equal(result.status, "failed");
    assert.match(result.message!, message);
  });
}
