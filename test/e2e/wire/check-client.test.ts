/**
 * `acp check client` end to end: it passes on `acp exec` and on `acp chat` driven headless (non-TTY), and each
 * deliberately broken client (one fault each) is caught by the right check. Real client processes, a real relay
 * process as their agent, a real socket on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, test } from "node:test";
import { ACP, acp, faultyClient, results, tempDir } from "./support.js";

const dataDir = tempDir("acpkit-check-client-data-");
const env = { ACPKIT_DATA_DIR: dataDir };
after(() => rmSync(dataDir, { recursive: true, force: true }));

const ALWAYS_EXERCISED = ["initialize", "fs.read", "fs.write", "fs.outside-roots", "terminal.lifecycle", "terminal.output-limit", "terminal.outside-roots", "permission.options", "updates.early", "updates.late", "cancel.end-turn", "robust.large-frame", "robust.non-json", "robust.crash-mid-frame", "robust.slow-initialize", "process.no-leftover"];

test("acp check client passes on acp exec", { timeout: 400_000 }, async () => {
  const run = await acp(["check", "client", "--format", "json", "--", process.execPath, ACP, "exec", "--agent", "{agent}", "hi"], { env });
  const byId = results(run);
  assert.equal(run.code, 0, run.stdout);
  for (const id of ALWAYS_EXERCISED) assert.equal(byId.get(id)?.status, "passed", `${id}: ${byId.get(id)?.message}`);
  // acp exec answers permission requests by its non-interactive policy at once: nothing is pending to cancel.
  assert.equal(byId.get("permission.cancelled")!.status, "not-exercised");
  assert.match(byId.get("cancel.end-turn")!.message!, /exit code 130/);
});

test("acp check client passes on acp chat driven headless: the prompt on stdin, the user's answers asked for", { timeout: 600_000 }, async () => {
  const run = await acp(["check", "client", "--format", "json", "--timeout", "60", "--skip", "permission.options", "--stdin", "hi", "--", process.execPath, ACP, "chat", "--agent", "{agent}"], { env });
  const byId = results(run);
  assert.equal(run.code, 0, run.stdout);
  for (const id of ALWAYS_EXERCISED.filter((id) => id !== "permission.options")) assert.equal(byId.get(id)?.status, "passed", `${id}: ${byId.get(id)?.message}`);
  // The chat asks the user, so a permission request stays pending until Ctrl-C cancels the turn.
  assert.equal(byId.get("permission.cancelled")!.status, "passed", byId.get("permission.cancelled")!.message);
});

test("acp chat with a non-interactive policy answers every permission option kind", { timeout: 120_000 }, async () => {
  const run = await acp(["check", "client", "--format", "json", "--only", "permission", "--stdin", "hi", "--", process.execPath, ACP, "chat", "--permissions", "allow-all", "--agent", "{agent}"], { env });
  const byId = results(run);
  assert.equal(run.code, 0, run.stdout);
  assert.match(byId.get("permission.options")!.message!, /answered allow_once, then reject_once/);
});

const FAULTS: Array<[fault: string, scenario: string, message: RegExp]> = [
  ["drop-early-updates", "updates.early", /the client lost the agent_message_chunk the agent sent for the new session just before answering session\/new .* a client MUST keep them for that session/],
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

test("a client command without {agent} is a usage error; a client that never starts its agent exits 3", { timeout: 120_000 }, async () => {
  const usage = await acp(["check", "client", "--", "my-client"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /must contain \{agent\}/);
  const never = await acp(["check", "client", "--only", "initialize", "--startup-timeout", "2", "--", process.execPath, "-e", "setTimeout(() => {}, 60000)", "{agent}"]);
  assert.equal(never.code, 3, never.stdout);
  assert.match(never.stdout, /the client did not start its agent \(the \{agent\} command\) within 2 s/);
});
