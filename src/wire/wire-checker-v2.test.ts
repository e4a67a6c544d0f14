/**
 * The rule engine on protocol v2 (draft) conversations: a client asking for v2 in `initialize` and an agent choosing
 * it make the rest of the conversation checked against v2's schema, by the rules that hold in v2 (v1's prompt-turn
 * and cancellation rules do not: a v2 prompt response is an acknowledgement and the turn goes on after it). A v1
 * agent answering a v2 client brings the conversation back to v1.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { conversation, CWD } from "./testing/conversation.js";

const info = { name: "t", version: "1" };
const update = (u: Record<string, unknown>) => ({ method: "session/update", params: { sessionId: "s1", update: u } });

function v2SetUp(agentCapabilities: Record<string, unknown> = { session: {} }) {
  const c = conversation();
  c.client({ id: 1, method: "initialize", params: { protocolVersion: 2, info, capabilities: {} } });
  c.agent({ id: 1, result: { protocolVersion: 2, info, capabilities: agentCapabilities } });
  c.client({ id: 2, method: "session/new", params: { cwd: CWD } });
  c.agent({ id: 2, result: { sessionId: "s1" } });
  return c;
}

test("a clean v2 turn (ack, then user_message, running, chunks, idle) has no findings", () => {
  const c = v2SetUp();
  assert.equal(c.checker.conversation.version, 2);
  c.client({ id: 3, method: "session/prompt", params: { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] } });
  c.agent({ id: 3, result: { messageId: "u1" } });
  c.agent(update({ sessionUpdate: "user_message", messageId: "u1", content: [{ type: "text", text: "hi" }] }));
  c.agent(update({ sessionUpdate: "state_update", state: "running" }));
  c.agent(update({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hello" } }));
  c.agent(
    update({
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      title: "build",
      status: "in_progress",
      capabilities: { cancel: {} },
    }),
  );
  c.client({ method: "session/cancel", params: { sessionId: "s1" } });
  c.agent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" }));
  assert.deepEqual(c.end(), []);
});

test("v2's schema is what is checked: a chunk without messageId, and a v1-shaped prompt result, are findings", () => {
  const c = v2SetUp();
  c.client({ id: 3, method: "session/prompt", params: { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] } });
  c.agent({ id: 3, result: { stopReason: "end_turn" } });
  c.agent(update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }));
  const findings = c.end();
  assert.deepEqual(
    findings.map((f) => [f.rule, f.path]),
    [
      ["schema", "$.result.messageId"],
      ["schema", "$.params.update.messageId"],
    ],
  );
});

test(
  "v2 capabilities are read from `capabilities`: a v2 agent without capabilities.session is not to be asked " +
    "session/new",
  () => {
    const c = conversation();
    c.client({ id: 1, method: "initialize", params: { protocolVersion: 2, info, capabilities: {} } });
    c.agent({ id: 1, result: { protocolVersion: 2, info, capabilities: {} } });
    c.client({ id: 2, method: "session/new", params: { cwd: CWD } });
    assert.deepEqual(c.rules(), ["capability.gate"]);
    assert.match(c.checker.findings[0]!.message, /did not advertise capabilities\.session in initialize/);
  },
);

test("a v2 client meeting a v1 agent: the agent's answer brings the conversation back to v1 and its rules", () => {
  const c = conversation();
  c.client({ id: 1, method: "initialize", params: { protocolVersion: 2, info, capabilities: {} } });
  c.agent({ id: 1, result: { protocolVersion: 1, agentCapabilities: {} } });
  assert.equal(c.checker.conversation.version, 1);
  c.client({ id: 2, method: "session/new", params: { cwd: CWD, mcpServers: [] } });
  c.agent({ id: 2, result: { sessionId: "s1" } });
  c.client({ id: 3, method: "session/prompt", params: { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] } });
  c.agent({ id: 3, result: { stopReason: "end_turn" } });
  c.chunk("late");
  assert.ok(
    c.end().some((f) => f.rule === "prompt.update-after-response"),
    "v1's turn rule applies again",
  );
});
