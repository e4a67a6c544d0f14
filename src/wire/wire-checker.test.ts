import assert from "node:assert/strict";
import { test } from "node:test";
import { ALL_RULES } from "./rules/index.js";
import { conversation, CWD } from "./testing/conversation.js";

const prompt = (id: number, text = "hi", sessionId = "s1") => ({
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

test("a clean conversation has no findings", () => {
  const c = conversation().setUp();
  const id = c.id();
  c.client(prompt(id))
    .chunk("hello")
    .agent({ id, result: { stopReason: "end_turn" } });
  c.agent({
    method: "session/update",
    params: { sessionId: "s1", update: { sessionUpdate: "available_commands_update", availableCommands: [] } },
  });
  assert.deepEqual(c.end(), []);
});

test("every rule has an id, a spec link, a description and judges someone; ids are unique", () => {
  const ids = new Set<string>();
  for (const rule of ALL_RULES) {
    assert.match(rule.id, /^[a-z]+(\.[a-z-]+)?$/);
    assert.match(rule.spec, /^https:\/\/agentclientprotocol\.com\/protocol\//);
    assert.ok(rule.description.length > 10 && rule.judges.length > 0);
    assert.ok(!ids.has(rule.id), rule.id);
    ids.add(rule.id);
  }
});

test("schema: an invalid update is reported with its JSON path and the schema's expectation", () => {
  const c = conversation().setUp();
  c.agent({
    method: "session/update",
    params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: 5 } } },
  });
  const [finding] = c.end();
  assert.equal(finding?.rule, "schema");
  assert.equal(finding?.side, "agent");
  assert.equal(finding?.path, "$.params.update.content.text");
  assert.match(
    finding!.message,
    /The agent sent an invalid session\/update notification: at \$\.params\.update\.content\.text expected string, received number 5\. What a side sends MUST match the ACP schema/,
  );
});

test("schema: results are checked against the def of the request they answer; errors against Error", () => {
  const c = conversation().setUp();
  const id = c.id();
  c.client(prompt(id)).agent({ id, result: { stopReason: "finished" } });
  const other = c.id();
  c.client(prompt(other)).agent({ id: other, error: { code: "bad" } });
  const findings = c.end();
  assert.deepEqual(
    findings.map((f) => [f.rule, f.path]),
    [
      ["schema", "$.result.stopReason"],
      ["schema", "$.error.code"],
    ],
  );
  assert.match(findings[0]!.message, /result of session\/prompt/);
});

test("jsonrpc.message: a log line on the agent's stdout is reported, with what the transport requires", () => {
  const c = conversation().setUp().raw("agent", "[info] starting up");
  const [finding] = c.end();
  assert.equal(finding?.rule, "jsonrpc.message");
  assert.match(
    finding!.message,
    /not JSON on its stdout: "\[info\] starting up"\. The agent MUST NOT write anything to its stdout that is not a valid ACP message/,
  );
});

test("jsonrpc.response: an answer to an unknown id, and a second answer", () => {
  const c = conversation().setUp();
  c.agent({ id: 99, result: {} });
  const id = c.id();
  c.client(prompt(id))
    .agent({ id, result: { stopReason: "end_turn" } })
    .agent({ id, result: { stopReason: "end_turn" } });
  assert.deepEqual(c.rules(), ["jsonrpc.response", "jsonrpc.response"]);
  assert.match(c.checker.findings[0]!.message, /no pending request with that id/);
  assert.match(c.checker.findings[1]!.message, /a second time/);
});

test("method.known: wrong direction, wrong kind, unknown names (extensions with _ are fine)", () => {
  const c = conversation().setUp();
  c.client({
    method: "session/update",
    params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } },
  });
  c.client({ id: c.id(), method: "session/cancel", params: { sessionId: "s1" } });
  c.agent({ method: "vendor/hello", params: {} });
  c.agent({ method: "_vendor/hello", params: {} });
  const findings = c.end();
  assert.deepEqual(
    findings.map((f) => [f.rule, f.severity]),
    [
      ["method.known", "error"],
      ["method.known", "error"],
      ["method.known", "warning"],
    ],
  );
});

test("capability.gate: fs without the client's capability; session/load without loadSession", () => {
  const c = conversation().setUp({}, {});
  c.agent({ id: 50, method: "fs/read_text_file", params: { sessionId: "s1", path: `${CWD}/a.txt` } });
  c.client({ id: c.id(), method: "session/load", params: { sessionId: "s1", cwd: CWD, mcpServers: [] } });
  const findings = c.end();
  assert.deepEqual(
    findings.map((f) => [f.rule, f.side]),
    [
      ["capability.gate", "agent"],
      ["capability.gate", "client"],
    ],
  );
  assert.match(findings[0]!.message, /did not advertise clientCapabilities\.fs\.readTextFile/);
});

test("initialize.first: a session before initialize", () => {
  const c = conversation();
  c.client({ id: 1, method: "session/new", params: { cwd: CWD, mcpServers: [] } });
  assert.deepEqual(c.rules(), ["initialize.first"]);
});

test("prompt.update-after-response: reported once per turn; a new prompt starts over", () => {
  const c = conversation().setUp();
  const id = c.id();
  c.client(prompt(id))
    .agent({ id, result: { stopReason: "end_turn" } })
    .chunk("late")
    .chunk("later");
  assert.deepEqual(c.rules(), ["prompt.update-after-response"]);
  assert.match(
    c.checker.findings[0]!.message,
    /update \(agent_message_chunk\) for session s1 after it answered the turn's session\/prompt \(id 3, stopReason "end_turn"\)/,
  );
  const next = c.id();
  c.client(prompt(next))
    .chunk("fine")
    .agent({ id: next, result: { stopReason: "end_turn" } });
  assert.equal(c.end().length, 1);
});

test("load.replay-before-response and resume.no-replay", () => {
  const c = conversation().setUp();
  const load = c.id();
  c.client({ id: load, method: "session/load", params: { sessionId: "s1", cwd: CWD, mcpServers: [] } })
    .agent({ id: load, result: {} })
    .chunk("replayed too late");
  const resume = c.id();
  c.client({ id: resume, method: "session/resume", params: { sessionId: "s1", cwd: CWD } })
    .chunk("replay")
    .agent({ id: resume, result: {} });
  assert.deepEqual(c.rules(), ["load.replay-before-response", "resume.no-replay"]);
});

test("cancel.stop-reason: end_turn or an error after session/cancel; a race within the window is forgiven", () => {
  const c = conversation().setUp();
  const id = c.id();
  c.client(prompt(id))
    .client({ method: "session/cancel", params: { sessionId: "s1" } })
    .wait(500)
    .agent({ id, result: { stopReason: "end_turn" } });
  const second = c.id();
  c.client(prompt(second))
    .client({ method: "session/cancel", params: { sessionId: "s1" } })
    .wait(100)
    .agent({ id: second, error: { code: -32603, message: "aborted" } });
  const third = c.id();
  c.client(prompt(third))
    .client({ method: "session/cancel", params: { sessionId: "s1" } })
    .agent({ id: third, result: { stopReason: "end_turn" } });
  const fourth = c.id();
  c.client(prompt(fourth))
    .client({ method: "session/cancel", params: { sessionId: "s1" } })
    .wait(100)
    .agent({ id: fourth, result: { stopReason: "cancelled" } });
  const findings = c.end();
  assert.deepEqual(
    findings.map((f) => f.rule),
    ["cancel.stop-reason", "cancel.stop-reason"],
  );
  assert.match(
    findings[0]!.message,
    /stopReason "end_turn" to a turn it had been told to stop with session\/cancel 510 ms earlier/,
  );
  assert.match(findings[1]!.message, /with an error \(-32603: aborted\)/);
});

test("cancel.pending-permission: a permission answered 'selected' after the client cancelled", () => {
  const c = conversation().setUp();
  const id = c.id();
  const permission = {
    sessionId: "s1",
    toolCall: { toolCallId: "t1" },
    options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
  };
  c.client(prompt(id)).agent({ id: 70, method: "session/request_permission", params: permission });
  c.client({ method: "session/cancel", params: { sessionId: "s1" } }).client({
    id: 70,
    result: { outcome: { outcome: "selected", optionId: "ok" } },
  });
  c.agent({ id: 71, method: "session/request_permission", params: permission })
    .client({ method: "session/cancel", params: { sessionId: "s1" } })
    .client({ id: 71, result: { outcome: { outcome: "cancelled" } } });
  assert.deepEqual(c.rules(), ["cancel.pending-permission"]);
  assert.match(c.checker.findings[0]!.message, /outcome "selected" \(option "ok"\) after it had cancelled the turn/);
});

test("path.absolute and path.within-roots", () => {
  const c = conversation().setUp();
  c.agent({ id: 80, method: "fs/read_text_file", params: { sessionId: "s1", path: "notes.txt" } });
  c.agent({ id: 81, method: "fs/write_text_file", params: { sessionId: "s1", path: "/etc/passwd", content: "" } });
  c.agent({
    id: 82,
    method: "fs/write_text_file",
    params: { sessionId: "s1", path: `${CWD}/sub/../ok.txt`, content: "" },
  });
  c.agent({ id: 83, method: "fs/read_text_file", params: { sessionId: "s1", path: `${CWD}/../escape.txt` } });
  const findings = c.end();
  assert.deepEqual(
    findings.map((f) => [f.rule, f.severity, f.path]),
    [
      ["path.absolute", "error", "$.params.path"],
      ["path.within-roots", "warning", "$.params.path"],
      ["path.within-roots", "warning", "$.params.path"],
    ],
  );
  assert.match(findings[0]!.message, /relative path "notes\.txt" in fs\/read_text_file/);
});

test("terminal.release: a terminal never released is reported at the end; use after release is a warning", () => {
  const c = conversation().setUp();
  c.agent({ id: 90, method: "terminal/create", params: { sessionId: "s1", command: "make" } }).client({
    id: 90,
    result: { terminalId: "term-1" },
  });
  c.agent({ id: 91, method: "terminal/create", params: { sessionId: "s1", command: "ls" } }).client({
    id: 91,
    result: { terminalId: "term-2" },
  });
  c.agent({ id: 92, method: "terminal/release", params: { sessionId: "s1", terminalId: "term-2" } }).client({
    id: 92,
    result: {},
  });
  c.agent({ id: 93, method: "terminal/output", params: { sessionId: "s1", terminalId: "term-2" } });
  assert.deepEqual(c.rules(), ["terminal.release"]);
  const findings = c.end();
  assert.equal(findings.length, 2);
  assert.match(findings[1]!.message, /never released terminal term-1 \(command "make"\)/);
});

test("judge: findings about the other side are dropped", () => {
  const c = conversation({ judge: ["client"] }).setUp();
  c.raw("agent", "log line");
  assert.deepEqual(c.end(), []);
});

test("unstable-only content is a warning against the stable schema, accepted against the unstable one", async () => {
  const { unstableFlavor } = await import("../acp/flavors.js");
  const fork = { method: "session/fork", params: { sessionId: "s1", cwd: CWD, mcpServers: [] } };
  const caps = [{}, { sessionCapabilities: { fork: {} } }] as const;
  const stable = conversation().setUp(...caps);
  stable.client({ id: stable.id(), ...fork });
  assert.deepEqual(
    stable.end().filter((f) => f.severity === "error"),
    [],
  );
  const unstable = conversation({ flavor: unstableFlavor }).setUp(...caps);
  unstable.client({ id: unstable.id(), ...fork });
  assert.deepEqual(unstable.end(), []);
});

test("jsonrpc.response: an error with id null answering a malformed line or an invalid message is fine", () => {
  const c = conversation().setUp();
  c.raw("client", '{"jsonrpc":"2.0","id":5,"method":');
  c.agent({ id: null, error: { code: -32700, message: "Parse error" } });
  c.client({ id: 7, method: 42 });
  c.agent({ id: 7, error: { code: -32600, message: "Invalid request" } });
  c.agent({ id: null, error: { code: -32700, message: "Parse error" } });
  assert.deepEqual(c.rules(), ["jsonrpc.message", "jsonrpc.message", "jsonrpc.response"]);
});

test(
  "jsonrpc.message: a response without an id (as some agents " + "answer notifications) says what JSON-RPC requires",
  () => {
    const c = conversation().setUp();
    c.client({ method: "_vendor/notice", params: {} });
    c.agent({ error: { code: -32601, message: "Method not found" } });
    const [finding] = c.end();
    assert.equal(finding?.rule, "jsonrpc.message");
    assert.match(
      finding!.message,
      /a response without "id": every JSON-RPC 2\.0 response carries the id of the request it answers .* a notification gets no response at all/,
    );
  },
);
