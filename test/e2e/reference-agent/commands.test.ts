/**
 * `acp agent` end to end over a real process, driven by the official SDK's client (sdk-1.9 ClientSideConnection):
 * every slash command, modes, the config option, prompt content, session management; and every line the agent
 * wrote is checked against the schema at the end.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type * as acp from "sdk-1.9";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { agentViolations, startRefAgent, text, type RefAgent } from "../fixtures/ref-harness.js";

const REQUIRED_COMMANDS = [
  "read",
  "write",
  "edit",
  "run",
  "grep",
  "plan",
  "think",
  "stream",
  "slow",
  "fail",
  "elicit",
  "usage",
  "title",
  "mcp",
  "mcp-call",
  "help",
];

describe("acp agent: slash commands, modes and sessions over the official SDK client", () => {
  let agent: RefAgent & { init: acp.InitializeResponse };
  let root: string;
  let dataDir: string;
  let sessionId: string;
  let created: acp.NewSessionResponse;

  const prompt = async (value: string, id = sessionId) => {
    const from = agent.host.updates.length;
    const response = await agent.connection.prompt(text(id, value));
    return {
      response,
      said: agent.host.said(id, from),
      updates: agent.host.updates
        .slice(from)
        .filter((n) => n.sessionId === id)
        .map((n) => n.update),
    };
  };

  before(async () => {
    root = makeTempDir("ref-agent-ws-");
    dataDir = makeTempDir("ref-agent-data-");
    writeFileSync(join(root, "notes.txt"), "alpha\nbeta\n");
    writeFileSync(join(root, "code.ts"), "export const answer = 41;\n");
    agent = await startRefAgent({ root, dataDir });
    created = await agent.connection.newSession({ cwd: root, mcpServers: [] });
    sessionId = created.sessionId;
    await agent.host.until(
      () => agent.host.of(sessionId).some((u) => u.sessionUpdate === "available_commands_update"),
      5000,
      "available_commands_update",
    );
  });

  after(async () => {
    await agent?.stop();
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  it("advertises sessions, prompt content, modes, the model option and the commands", () => {
    const caps = agent.init.agentCapabilities!;
    assert.equal(caps.loadSession, true);
    for (const key of ["list", "resume", "close", "delete"]) assert.ok(caps.sessionCapabilities?.[key as "list"], key);
    assert.deepEqual(caps.promptCapabilities, { image: true, audio: true, embeddedContext: true });
    assert.equal(created.modes?.currentModeId, "ask");
    assert.deepEqual(
      created.modes?.availableModes.map((m) => m.id),
      ["ask", "code", "architect"],
    );
    assert.equal(created.configOptions?.[0]?.id, "model");
    const update = agent.host.of(sessionId).find((u) => u.sessionUpdate === "available_commands_update");
    const names =
      update?.sessionUpdate === "available_commands_update" ? update.availableCommands.map((c) => c.name) : [];
    for (const name of REQUIRED_COMMANDS) assert.ok(names.includes(name), `/${name} is advertised`);
  });

  it("answers plain text without a model with what it can do and how to configure one", async () => {
    const { response, said } = await prompt("hello, what can you do?");
    assert.equal(response.stopReason, "end_turn");
    assert.match(said, /\/help/);
    assert.match(said, /--model-url/);
    assert.match(said, /ACP_MODEL_URL/);
  });

  it("says what image, audio and embedded-context prompts contained", async () => {
    const from = agent.host.updates.length;
    await agent.connection.prompt({
      sessionId,
      prompt: [
        { type: "text", text: "look at these" },
        { type: "image", mimeType: "image/png", data: Buffer.from("12345678").toString("base64") },
        { type: "audio", mimeType: "audio/wav", data: Buffer.from("1234").toString("base64") },
        { type: "resource", resource: { uri: "file:///x/notes.md", mimeType: "text/markdown", text: "one\ntwo" } },
        { type: "resource_link", uri: "file:///x/big.bin", name: "big.bin" },
      ],
    });
    const said = agent.host.said(sessionId, from);
    assert.match(said, /4 attachments/);
    assert.match(said, /an image \(image\/png, 8 bytes\)/);
    assert.match(said, /audio \(audio\/wav, 4 bytes\)/);
    assert.match(said, /embedded resource file:\/\/\/x\/notes\.md \(text\/markdown, 2 lines/);
    assert.match(said, /a link to file:\/\/\/x\/big\.bin/);
  });

  it("/read reads a relative path through the client, with an absolute path on the wire", async () => {
    const { said, updates } = await prompt("/read notes.txt");
    assert.match(said, /2 lines/);
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    assert.equal(call?.sessionUpdate === "tool_call" && call.locations?.[0]?.path, join(root, "notes.txt"));
    assert.ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"));
  });

  it("/write in ask mode asks permission, shows a diff and writes; a rejection leaves the file alone", async () => {
    const asked = agent.host.permissionRequests.length;
    const { updates } = await prompt("/write new.txt hello\\nworld");
    assert.equal(agent.host.permissionRequests.length, asked + 1);
    assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "hello\nworld");
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    assert.deepEqual(call?.sessionUpdate === "tool_call" && call.content?.[0], {
      type: "diff",
      path: join(root, "new.txt"),
      newText: "hello\nworld",
    });
    agent.host.permissionPolicy = "reject";
    try {
      const { said } = await prompt("/write notes.txt replaced");
      assert.match(said, /rejected/);
      assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "alpha\nbeta\n");
    } finally {
      agent.host.permissionPolicy = "allow";
    }
  });

  it("/edit shows a diff; code mode edits without asking; architect mode refuses", async () => {
    await agent.connection.setSessionMode({ sessionId, modeId: "code" });
    const asked = agent.host.permissionRequests.length;
    const { updates } = await prompt("/edit code.ts 41 => 42");
    assert.equal(agent.host.permissionRequests.length, asked);
    assert.equal(readFileSync(join(root, "code.ts"), "utf8"), "export const answer = 42;\n");
    const call = updates.find((u) => u.sessionUpdate === "tool_call");
    assert.deepEqual(call?.sessionUpdate === "tool_call" && call.content?.[0], {
      type: "diff",
      path: join(root, "code.ts"),
      oldText: "export const answer = 41;\n",
      newText: "export const answer = 42;\n",
    });
    await prompt("/edit notes.txt");
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "alpha\nbeta\nEdited by the acp reference agent.\n");
    await agent.connection.setSessionMode({ sessionId, modeId: "architect" });
    const refused = await prompt("/write notes.txt nope");
    assert.match(refused.said, /architect mode/);
    assert.ok(!existsSync(join(root, "nope")));
    assert.match(readFileSync(join(root, "notes.txt"), "utf8"), /^alpha/);
    assert.ok(refused.updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"));
    await assert.rejects(agent.connection.setSessionMode({ sessionId, modeId: "yolo" }));
    await agent.connection.setSessionMode({ sessionId, modeId: "ask" });
  });

  it("/run runs in a client terminal embedded in the tool call, always released, with a timeout", async () => {
    const { said, updates } = await prompt("/run echo hi-from-terminal");
    assert.match(said, /hi-from-terminal/);
    assert.ok(
      updates.some((u) => u.sessionUpdate === "tool_call_update" && u.content?.some((c) => c.type === "terminal")),
    );
    assert.ok(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"));
    const started = Date.now();
    const slow = await prompt("/run --timeout 300 sleep 5");
    assert.ok(Date.now() - started < 3000, "the timeout killed the command");
    assert.match(slow.said, /timed out after 300 ms/);
    assert.ok(slow.updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"));
    assert.equal(agent.host.terminals.created, 2);
    assert.equal(agent.host.terminals.released, 2);
    assert.equal(agent.host.terminals.open, 0);
  });

  it("/grep finds matches under the session's directory", async () => {
    const { said } = await prompt("/grep answer = \\d+");
    assert.match(said, /code\.ts:1: export const answer = 42;/);
  });

  it("/plan sends a plan that evolves until every step is complete", async () => {
    const { updates } = await prompt("/plan");
    const plans = updates.flatMap((u) => (u.sessionUpdate === "plan" ? [u.entries] : []));
    assert.ok(plans.length >= 6);
    assert.ok(plans[0]!.every((e) => e.status === "pending"));
    assert.equal(plans.at(-1)!.length, 4);
    assert.ok(plans.at(-1)!.every((e) => e.status === "completed"));
  });

  it("/think streams thought chunks", async () => {
    const { updates } = await prompt("/think the weather");
    assert.equal(updates.filter((u) => u.sessionUpdate === "agent_thought_chunk").length, 3);
  });

  it("/stream N sends exactly N chunks, all before the response", async () => {
    const { response, updates } = await prompt("/stream 200 tick");
    assert.equal(response.stopReason, "end_turn");
    const chunks = updates.flatMap((u) =>
      u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [],
    );
    assert.deepEqual(
      chunks,
      Array.from({ length: 200 }, (_, i) => `tick ${i + 1}\n`),
    );
  });

  it("/slow MS takes that long; /fail answers with an error after a failed tool call", async () => {
    const started = Date.now();
    const { said } = await prompt("/slow 150");
    assert.ok(Date.now() - started >= 140);
    assert.match(said, /Done after 150 ms/);
    const from = agent.host.updates.length;
    await assert.rejects(agent.connection.prompt(text(sessionId, "/fail")), /fails on purpose/);
    assert.ok(
      agent.host.updates
        .slice(from)
        .some((n) => n.update.sessionUpdate === "tool_call_update" && n.update.status === "failed"),
    );
    assert.equal((await prompt("/stream 1")).response.stopReason, "end_turn", "the session still works");
  });

  it("/elicit asks through a form; /usage sends usage_update; /title sets the title", async () => {
    const { said } = await prompt("/elicit");
    assert.equal(agent.host.elicitations.length, 1);
    assert.match(said, /"name":"Ada"/);
    const usage = await prompt("/usage");
    const update = usage.updates.find((u) => u.sessionUpdate === "usage_update");
    assert.ok(update?.sessionUpdate === "usage_update" && update.used > 0 && update.size === 128000);
    const titled = await prompt("/title My reference session");
    assert.ok(
      titled.updates.some((u) => u.sessionUpdate === "session_info_update" && u.title === "My reference session"),
    );
    const listed = await agent.connection.listSessions({ cwd: root });
    assert.equal(listed.sessions.find((s) => s.sessionId === sessionId)?.title, "My reference session");
  });

  it(
    "/mcp lists the session's MCP servers; /mcp-call reports an " + "unknown server; /help lists every command",
    async () => {
      assert.match((await prompt("/mcp")).said, /no MCP servers/);
      const withServer = await agent.connection.newSession({
        cwd: root,
        mcpServers: [{ name: "files", command: "/bin/false", args: [], env: [] }],
      });
      assert.match((await prompt("/mcp", withServer.sessionId)).said, /files \(stdio\)/);
      assert.match((await prompt('/mcp-call nowhere tool {"a":1}')).said, /no MCP server named "nowhere"/);
      const help = (await prompt("/help")).said;
      for (const name of REQUIRED_COMMANDS) assert.match(help, new RegExp(`/${name}\\b`));
    },
  );

  it("the model option: scripted is accepted, unknown values are refused", async () => {
    const response = await agent.connection.setSessionConfigOption({ sessionId, configId: "model", value: "scripted" });
    assert.equal(response.configOptions[0]?.currentValue, "scripted");
    await assert.rejects(agent.connection.setSessionConfigOption({ sessionId, configId: "model", value: "gpt-9" }));
  });

  it("list, resume (mode kept), close and delete", async () => {
    const other = await agent.connection.newSession({ cwd: root, mcpServers: [] });
    await agent.connection.setSessionMode({ sessionId: other.sessionId, modeId: "architect" });
    const listed = await agent.connection.listSessions({ cwd: root });
    assert.ok(listed.sessions.some((s) => s.sessionId === other.sessionId));
    await agent.connection.closeSession({ sessionId: other.sessionId });
    const resumed = await agent.connection.resumeSession({ sessionId: other.sessionId, cwd: root, mcpServers: [] });
    assert.equal(resumed.modes?.currentModeId, "architect");
    await agent.connection.deleteSession({ sessionId: other.sessionId });
    assert.ok(
      !(await agent.connection.listSessions({ cwd: root })).sessions.some((s) => s.sessionId === other.sessionId),
    );
  });

  it("every message the agent sent is schema-valid", async () => {
    const { report, checked } = await agentViolations(agent.wire);
    assert.ok(checked > 300, `checked ${checked} messages`);
    assert.equal(report, "");
  });
});
