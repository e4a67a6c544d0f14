import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate } from "../../protocol/index.js";
import { Transcript } from "./transcript.js";
import type { MessageEntry } from "./transcript-types.js";

import { agent, outline, output, text, thought } from "./testing/transcript-outline.js";

test(
  "a realistic turn: thoughts, chunks with and without messageId, a tool call patched to completion, the plan " +
    "replaced",
  () => {
    const transcript = new Transcript({ sessionId: "s1" });
    transcript.beginTurn([text("Fix the failing test")]);
    const updates: SessionUpdate[] = [
      thought("The user wants "),
      thought("a fix."),
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the test", priority: "high", status: "in_progress" },
          { content: "Fix it", priority: "medium", status: "pending" },
        ],
      },
      agent("Let me look ", "m1"),
      agent("at the test.", "m1"),
      {
        sessionUpdate: "tool_call",
        toolCallId: "call_1",
        title: "Read file",
        kind: "read",
        status: "pending",
        locations: [{ path: "/work/a.test.ts" }],
        rawInput: { path: "/work/a.test.ts" },
      },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress", title: "Read a.test.ts" },
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", content: [output("partial")] },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "completed",
        content: [output("line 1\nline 2")],
        rawOutput: { lines: 2 },
      },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the test", priority: "high", status: "completed" },
          { content: "Fix it", priority: "medium", status: "in_progress" },
        ],
      },
      agent("Found it", "m2"),
      agent("."),
      agent(" Done."),
    ];
    for (const update of updates) transcript.apply(update);
    transcript.endTurn("end_turn");

    assert.deepEqual(outline(transcript), [
      "user: Fix the failing test",
      "thought: The user wants a fix.",
      "plan: Read the test=completed, Fix it=in_progress",
      "agent: Let me look at the test.",
      "tool call_1 [read/completed] Read a.test.ts",
      "agent: Found it. Done.", // id-less chunks join the latest message of their role
    ]);
    const call = transcript.toolCall("call_1")!;
    assert.deepEqual(call.content, [output("line 1\nline 2")]); // replaced, not appended
    assert.deepEqual(call.locations, [{ path: "/work/a.test.ts" }]); // absent in the updates: kept
    assert.deepEqual(call.rawInput, { path: "/work/a.test.ts" });
    assert.deepEqual(call.rawOutput, { lines: 2 });
    assert.equal(transcript.plan?.length, 2);
    assert.equal(transcript.plan?.[0]?.status, "completed");
    const message = transcript.entries[3] as MessageEntry;
    assert.equal(message.messageId, "m1");
    assert.deepEqual(message.content, [text("Let me look at the test.")]);
    assert.equal(new Set(transcript.entries.map((entry) => entry.id)).size, transcript.entries.length);
    assert.ok(transcript.entries.every((entry) => entry.turn === 0 && entry.late === undefined));
    assert.deepEqual(transcript.turns[0], {
      index: 0,
      prompt: [text("Fix the failing test")],
      state: "ended",
      cancelRequested: false,
      lateUpdates: 0,
      stopReason: "end_turn",
      outcome: "end_turn",
    });
  },
);

test("chunks with a messageId join their message wherever it is; interleaved roles stay apart", () => {
  const transcript = new Transcript();
  for (const update of [
    agent("Hel", "a"),
    thought("hmm", "t"),
    agent("lo", "a"),
    thought("!", "t"),
    agent("x"),
    agent("y"),
  ])
    transcript.apply(update);
  assert.deepEqual(outline(transcript), ["agent: Hello", "thought: hmm!", "agent: xy"]);
  transcript.apply(agent("z", "b"));
  transcript.apply(agent("w"));
  transcript.apply(thought("."));
  transcript.apply(agent("v"));
  assert.deepEqual(outline(transcript).slice(3), ["agent: zw", "thought: .", "agent: v"]);
});

test("non-text blocks are appended as blocks; annotated text is not joined", () => {
  const transcript = new Transcript();
  transcript.apply(agent("see "));
  transcript.apply({
    sessionUpdate: "agent_message_chunk",
    content: { type: "resource_link", uri: "file:///a", name: "a" },
  });
  transcript.apply({
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: "note", annotations: { priority: 1 } },
  });
  const entry = transcript.entries[0] as MessageEntry;
  assert.equal(entry.content.length, 3);
  assert.equal(entry.text, "see note");
});

test("tool calls: update for an unknown id creates the entry, a repeated tool_call merges, null keeps", () => {
  const transcript = new Transcript();
  transcript.apply({ sessionUpdate: "tool_call_update", toolCallId: "x", status: "in_progress" });
  assert.deepEqual(transcript.toolCall("x"), {
    toolCallId: "x",
    title: "",
    kind: "other",
    status: "in_progress",
    content: [],
    locations: [],
  });
  transcript.apply({
    sessionUpdate: "tool_call",
    toolCallId: "x",
    title: "Run tests",
    kind: "execute",
    content: [{ type: "terminal", terminalId: "t1" }],
  });
  transcript.apply({
    sessionUpdate: "tool_call_update",
    toolCallId: "x",
    title: null,
    kind: null,
    content: null,
    locations: [{ path: "/w", line: 3 }],
  });
  transcript.apply({ sessionUpdate: "tool_call_update", toolCallId: "x", status: "failed", content: [] });
  assert.equal(transcript.entries.length, 1);
  assert.deepEqual(transcript.toolCall("x"), {
    toolCallId: "x",
    title: "Run tests",
    kind: "execute",
    status: "failed",
    content: [],
    locations: [{ path: "/w", line: 3 }],
  });
});

test("mode, config options, commands, usage, session info and an unknown kind", () => {
  const transcript = new Transcript();
  transcript.setup({
    modes: {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
    },
    configOptions: [
      {
        type: "select",
        id: "model",
        name: "Model",
        currentValue: "small",
        options: [{ value: "small", name: "Small" }],
      },
    ],
  });
  assert.equal(transcript.currentModeId, "ask");
  transcript.apply({ sessionUpdate: "current_mode_update", currentModeId: "code" });
  assert.equal(transcript.currentModeId, "code");
  assert.equal(transcript.state.modes?.currentModeId, "code");
  transcript.apply({
    sessionUpdate: "config_option_update",
    configOptions: [{ type: "boolean", id: "fast", name: "Fast", currentValue: true }],
  });
  assert.deepEqual(
    transcript.configOptions?.map((option) => option.id),
    ["fast"],
  );
  transcript.apply({
    sessionUpdate: "available_commands_update",
    availableCommands: [{ name: "plan", description: "Make a plan", input: { hint: "goal" } }],
  });
  assert.equal(transcript.availableCommands?.[0]?.name, "plan");
  transcript.apply({
    sessionUpdate: "usage_update",
    used: 1200,
    size: 200000,
    cost: { amount: 0.01, currency: "USD" },
  });
  transcript.apply({ sessionUpdate: "usage_update", used: 1500, size: 200000, cost: null });
  assert.deepEqual(transcript.usage, { used: 1500, size: 200000 });
  transcript.apply({ sessionUpdate: "session_info_update", title: "Fix tests", updatedAt: "2025-01-01T00:00:00Z" });
  transcript.apply({ sessionUpdate: "session_info_update", updatedAt: "2025-01-02T00:00:00Z" });
  assert.deepEqual(transcript.info, { title: "Fix tests", updatedAt: "2025-01-02T00:00:00Z" });
  transcript.apply({ sessionUpdate: "session_info_update", title: null });
  assert.deepEqual(transcript.info, { updatedAt: "2025-01-02T00:00:00Z" });
  const future = { sessionUpdate: "hologram_update", frames: 3 };
  transcript.apply(future);
  assert.deepEqual(transcript.unknown, [{ turn: undefined, update: future }]);
  assert.equal(transcript.entries.length, 0);
});
