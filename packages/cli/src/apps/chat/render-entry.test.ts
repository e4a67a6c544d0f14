/* eslint-disable no-control-regex -- these tests look for escape codes */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Transcript } from "@acpkit/sdk/client-toolkit";
import { ansiPainter, plainPainter } from "./paint.js";
import { renderEntry, renderThought, renderTurnEnd, renderUsage } from "./render-entry.js";
import { renderToolCall } from "./render-tool.js";

test("a tool call card: kind, title, status, locations, a coloured diff, live terminal output", () => {
  const transcript = new Transcript();
  transcript.apply({
    sessionUpdate: "tool_call",
    toolCallId: "t",
    title: "Edit a.txt",
    kind: "edit",
    status: "in_progress",
    locations: [{ path: "/w/a.txt", line: 2 }],
    content: [
      { type: "diff", path: "a.txt", oldText: "x\ny\n", newText: "x\nz\n" },
      { type: "terminal", terminalId: "term" },
    ],
  });
  const call = transcript.toolCall("t")!;
  const terminal = () => ({ output: "line 1\nline 2\n", exited: true, exitCode: 0 });
  assert.deepEqual(renderToolCall(call, 60, plainPainter, { terminal }), [
    "┌ [edit] Edit a.txt ◐ in progress",
    "│ /w/a.txt:2",
    "│ a.txt +1 -1",
    "│ @@ -1,2 +1,2 @@",
    "│  x",
    "│ -y",
    "│ +z",
    "│ line 1",
    "│ line 2",
    "│ $ exit 0",
  ]);
  const coloured = renderToolCall(call, 60, ansiPainter, { terminal });
  assert.ok(coloured.some((line) => line.includes("\u001b[31m-y")));
  assert.ok(coloured.some((line) => line.includes("\u001b[32m+z")));
  assert.deepEqual(renderToolCall({ ...call, status: "completed" }, 60, plainPainter, { collapsed: true }), [
    "┌ [edit] Edit a.txt ✓ completed",
  ]);
});

test("messages, thoughts (collapsed or whole), plans; nothing is coloured with the plain painter", () => {
  const transcript = new Transcript();
  transcript.beginTurn([{ type: "text", text: "hi" }]);
  transcript.apply({
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: "first idea\nsecond idea" },
  });
  transcript.apply({
    sessionUpdate: "plan",
    entries: [
      { content: "Read", priority: "high", status: "completed" },
      { content: "Write", priority: "low", status: "in_progress" },
    ],
  });
  transcript.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "**Done**." } });
  const lines = transcript.entries.flatMap((entry) => renderEntry(entry, 60, plainPainter));
  assert.deepEqual(lines, [
    "› hi",
    "┊ thinking: first idea (+1 lines, :thoughts to expand)",
    "Plan 1/2",
    "  [x] Read",
    "  [>] Write",
    "Done.",
  ]);
  assert.deepEqual(renderThought("first idea\nsecond idea", 60, plainPainter, { expandThoughts: true }), [
    "┊ first idea",
    "┊ second idea",
  ]);
  assert.deepEqual(renderThought("first idea\nsecond idea", 60, plainPainter, { live: true }), [
    "┊ thinking: second idea (+1 lines, :thoughts to expand)",
  ]);
  for (const line of lines) assert.doesNotMatch(line, /\u001b/);
});

test("turn ends and usage", () => {
  const transcript = new Transcript();
  transcript.beginTurn([]);
  transcript.requestCancel();
  assert.deepEqual(renderTurnEnd(transcript.endTurn("end_turn")!, plainPainter), ["⊘ cancelled"]);
  transcript.beginTurn([]);
  assert.deepEqual(renderTurnEnd(transcript.failTurn(new Error("boom\nstack"))!, plainPainter), ["✗ error: boom"]);
  assert.equal(
    renderUsage({ used: 1500, size: 200000, cost: { amount: 0.0123, currency: "USD" } }, plainPainter),
    "context 1,500 / 200,000 tokens (0.8%) · $0.0123",
  );
});
