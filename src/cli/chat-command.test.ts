import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultAgentArgv, parseChatArgs } from "./chat-command.js";

test("acp chat arguments: options, the agent after -- or as --agent, help, and errors", () => {
  assert.deepEqual(parseChatArgs(["--cwd", "/w", "--resume", "s1", "--verbose", "--no-color", "--", "my-agent", "--flag"]), {
    agentArgv: ["my-agent", "--flag"],
    cwd: "/w",
    resume: "s1",
    verbose: true,
    noColor: true,
  });
  assert.deepEqual(parseChatArgs(["--agent", "npx some-agent 'a b'"]), { agentArgv: ["npx", "some-agent", "a b"] });
  assert.deepEqual(parseChatArgs([]), { agentArgv: defaultAgentArgv() });
  assert.equal(parseChatArgs(["-h"]), "help");
  assert.throws(() => parseChatArgs(["--cwd"]), /--cwd needs a value/);
  assert.throws(() => parseChatArgs(["--what"]), /unknown option --what/);
  assert.throws(() => parseChatArgs(["--"]), /no agent program/);
  assert.throws(() => parseChatArgs(["--startup-timeout", "soon"]), /positive number/);
});

test("the default agent is the reference agent (acp agent)", () => {
  const argv = defaultAgentArgv();
  assert.equal(argv[0], process.execPath);
  assert.match(argv.slice(1).join(" "), /cli\/main\.js agent$|demo-agent\.js$/);
});
