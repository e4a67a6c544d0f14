import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate } from "../../protocol/index.js";
import { schemas } from "../../protocol/index.js";
import { PlanTracker } from "./plan.js";
import { diffContent, terminalContent, textContent, ToolCallTracker } from "./tool-calls.js";

function sink() {
  const sent: SessionUpdate[] = [];
  return { sent, send: (update: SessionUpdate) => (sent.push(update), Promise.resolve()) };
}

test("a tool call goes pending -> in_progress -> completed, sending only what changed, all schema-valid", async () => {
  const { sent, send } = sink();
  const tracker = new ToolCallTracker(send);
  const call = tracker.create({
    title: "Edit a.ts",
    kind: "edit",
    locations: [{ path: "/p/a.ts", line: 3 }],
    rawInput: { path: "/p/a.ts" },
  });
  await call.start();
  await call.addContent(textContent("editing"));
  await call.complete({
    content: [diffContent("/p/a.ts", "a", "b"), diffContent("/p/new.ts", null, "c")],
    rawOutput: { ok: true },
  });
  assert.equal(call.status, "completed");
  assert.deepEqual(sent, [
    {
      sessionUpdate: "tool_call",
      toolCallId: call.id,
      title: "Edit a.ts",
      kind: "edit",
      status: "pending",
      locations: [{ path: "/p/a.ts", line: 3 }],
      rawInput: { path: "/p/a.ts" },
    },
    { sessionUpdate: "tool_call_update", toolCallId: call.id, status: "in_progress" },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: call.id,
      content: [{ type: "content", content: { type: "text", text: "editing" } }],
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: call.id,
      status: "completed",
      content: [
        { type: "diff", path: "/p/a.ts", oldText: "a", newText: "b" },
        { type: "diff", path: "/p/new.ts", newText: "c" },
      ],
      rawOutput: { ok: true },
    },
  ]);
  for (const update of sent) assert.deepEqual(schemas.SessionNotification!.check({ sessionId: "s", update }), []);
  assert.throws(() => call.start(), /cannot go from completed to in_progress/);
  assert.deepEqual(tracker.unfinished(), []);
});

test("a failed call carries its error as text; terminals embed; ids are unique", async () => {
  const { sent, send } = sink();
  const tracker = new ToolCallTracker(send);
  const run = tracker.create({ title: "npm test", kind: "execute", content: [terminalContent("term-1")] });
  assert.deepEqual(tracker.unfinished(), [run]);
  await run.fail(new Error("exit 1"));
  assert.deepEqual(sent[1], {
    sessionUpdate: "tool_call_update",
    toolCallId: run.id,
    status: "failed",
    content: [terminalContent("term-1"), textContent("exit 1")],
  });
  assert.throws(() => tracker.create({ toolCallId: run.id, title: "again" }), /already in use/);
  assert.notEqual(tracker.create({ title: "x" }).id, run.id);
});

test("the plan is sent whole on every change", async () => {
  const { sent, send } = sink();
  const plan = new PlanTracker(send);
  await plan.set(["one", { content: "two", priority: "high", status: "pending" }]);
  await plan.start(0);
  await plan.complete(0);
  await plan.add("three", "low");
  await plan.remove(1);
  assert.equal(sent.length, 5);
  assert.deepEqual(sent[4], {
    sessionUpdate: "plan",
    entries: [
      { content: "one", priority: "medium", status: "completed" },
      { content: "three", priority: "low", status: "pending" },
    ],
  });
  assert.throws(() => plan.start(9), RangeError);
});
