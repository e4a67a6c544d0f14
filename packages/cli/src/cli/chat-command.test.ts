import assert from "node:assert/strict";
import { test } from "node:test";
import { denyAll } from "@acpkit/sdk/client-toolkit";
import { chatSetup, defaultAgentArgv, parseChatArgs } from "./chat-command.js";
import { noAgentSetupFlags } from "./shared/agent-setup-flags.js";

test("acp chat arguments: options, the agent after -- or as --agent, help, and errors", () => {
  assert.deepEqual(
    parseChatArgs(["--cwd", "/w", "--resume", "s1", "--verbose", "--no-color", "--", "my-agent", "--flag"]),
    {
      agentArgv: ["my-agent", "--flag"],
      cwd: "/w",
      resume: "s1",
      verbose: true,
      noColor: true,
      setupFlags: noAgentSetupFlags(),
    },
  );
  assert.deepEqual(parseChatArgs(["--agent", "npx some-agent 'a b'"]), {
    agentArgv: ["npx", "some-agent", "a b"],
    setupFlags: noAgentSetupFlags(),
  });
  assert.deepEqual(parseChatArgs([]), { agentArgv: defaultAgentArgv(), setupFlags: noAgentSetupFlags() });
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

test("acp chat takes the agent-setup flags acp exec takes", () => {
  const args = parseChatArgs([
    "--trace",
    "t.ndjson",
    "--mcp-config",
    "mcp.json",
    "--mcp",
    "fs=/bin/fs --root .",
    "--mcp",
    "web=https://x/mcp",
    "--auth",
    "token",
    "--permissions",
    "allow-reads",
    "--",
    "agent",
  ]);
  assert.notEqual(args, "help");
  if (args === "help") return;
  assert.deepEqual(args.setupFlags, {
    trace: "t.ndjson",
    mcpConfig: "mcp.json",
    mcp: ["fs=/bin/fs --root .", "web=https://x/mcp"],
    auth: "token",
    permissions: "allow-reads",
  });
  assert.throws(
    () => parseChatArgs(["--permissions", "maybe"]),
    /--permissions must be one of allow-all, deny-all, allow-reads, ask or rules:FILE\.json/,
  );
  assert.throws(() => parseChatArgs(["--mcp", "nothing"]), /--mcp expects NAME=COMMAND or NAME=URL/);
  assert.throws(() => parseChatArgs(["--trace"]), /--trace needs a non-empty value/);
});

test("the chat's setup: the default policy is the chat's own asking; the flags' files are read then", () => {
  const ask = denyAll();
  const setup = chatSetup(noAgentSetupFlags())("/w", ask);
  assert.equal(setup.policy, ask);
  assert.deepEqual(setup.mcpServers, []);
  assert.equal(setup.tap, undefined);
  assert.equal(setup.auth, undefined);
  assert.throws(
    () => chatSetup({ ...noAgentSetupFlags(), mcpConfig: "/nonexistent/mcp.json" })("/w", ask),
    /--mcp-config: cannot read \/nonexistent\/mcp\.json/,
  );
});

test("acp chat --agent: another URL scheme says which work; a flag is never taken as --agent's value", () => {
  assert.throws(() => parseChatArgs(["--agent", "file:///tmp/agent"]), /file:\/\/ is not a way to reach an agent/);
  assert.throws(() => parseChatArgs(["--agent", "--verbose"]), /--agent needs a value, but --verbose follows it/);
});

test("acp chat --attach ID URL joins as a controller, --observe ID URL read-only; a URL is needed", () => {
  const attach = parseChatArgs(["--attach", "sess-1", "http://127.0.0.1:8765/acp", "--token", "t"]);
  assert.ok(attach !== "help");
  assert.deepEqual(attach.attach, { sessionId: "sess-1", role: "controller" });
  assert.equal(attach.remote?.url, "http://127.0.0.1:8765/acp");
  assert.deepEqual(attach.agentArgv, []);
  const observe = parseChatArgs(["--observe", "sess-2", "--agent", "ws://h/acp"]);
  assert.ok(observe !== "help");
  assert.deepEqual(observe.attach, { sessionId: "sess-2", role: "observer" });
  assert.equal(observe.remote?.url, "ws://h/acp");
  assert.throws(() => parseChatArgs(["--attach", "sess-1"]), /give its URL \(acp chat --attach ID URL\)/);
  assert.throws(() => parseChatArgs(["--observe"]), /--observe needs a value/);
});
