import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate, ToolCallContent } from "../../protocol/index.js";
import { Transcript } from "./transcript.js";
import type { MessageEntry, ToolCallEntry, TranscriptChange } from "./transcript-types.js";

const text = (value: string) => ({ type: "text" as const, text: value });
const agent = (value: string, messageId?: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: text(value),
  ...(messageId ? { messageId } : {}),
});
const thought = (value: string, messageId?: string): SessionUpdate => ({
  sessionUpdate: "agent_thought_chunk",
  content: text(value),
  ...(messageId ? { messageId } : {}),
});
const output = (value: string): ToolCallContent => ({ type: "content", content: text(value) });

/** A compact view of the entries: what a plain-text renderer would show. */
function outline(transcript: Transcript): string[] {
  return transcript.entries.map((entry) => {
    if (entry.kind === "message") return `${entry.role}: ${entry.text}`;
    if (entry.kind === "plan")
      return `plan: ${entry.entries.map((item) => `${item.content}=${item.status}`).join(", ")}`;
    if (entry.kind === "notice") return `notice ${entry.severity}: ${entry.title}`;
    if (entry.kind === "compaction") return `compaction ${entry.compactionId} ${entry.status}: ${entry.text}`;
    const call = entry.toolCall;
    return `tool ${call.toolCallId} [${call.kind}/${call.status}${call.cancelled ? "/cancelled" : ""}] ${call.title}`;
  });
}

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

test("updates after the prompt response fold into the ended turn, marked late", () => {
  const transcript = new Transcript();
  transcript.beginTurn([text("go")]);
  transcript.apply(agent("working"));
  transcript.apply({ sessionUpdate: "tool_call", toolCallId: "c", title: "Edit", kind: "edit", status: "in_progress" });
  transcript.endTurn("end_turn");
  transcript.apply({ sessionUpdate: "tool_call_update", toolCallId: "c", status: "completed" });
  transcript.apply(agent("late words"));
  transcript.apply({ sessionUpdate: "usage_update", used: 1, size: 2 }); // state, not an entry: not counted
  const turn = transcript.turns[0]!;
  assert.equal(turn.state, "ended");
  assert.equal(turn.lateUpdates, 2);
  const last = transcript.entries[transcript.entries.length - 1]!;
  assert.equal(last.turn, 0);
  assert.equal(last.late, true);
  assert.equal(transcript.toolCall("c")?.status, "completed");
  transcript.beginTurn([text("next")]);
  transcript.apply(agent("fresh"));
  assert.deepEqual(outline(transcript).slice(-2), ["user: next", "agent: fresh"]);
  assert.equal(transcript.entries[transcript.entries.length - 1]!.turn, 1);
});

test(
  "cancel then end_turn: the turn is cancelled and keeps the agent's stop reason; unfinished tool calls are " +
    "marked",
  () => {
    const transcript = new Transcript();
    transcript.beginTurn([text("long job")]);
    transcript.apply({
      sessionUpdate: "tool_call",
      toolCallId: "done",
      title: "Read",
      kind: "read",
      status: "completed",
    });
    transcript.apply({
      sessionUpdate: "tool_call",
      toolCallId: "running",
      title: "Build",
      kind: "execute",
      status: "in_progress",
    });
    assert.equal(transcript.requestCancel(), true);
    transcript.apply({ sessionUpdate: "tool_call_update", toolCallId: "running", status: "failed" }); // accepted after cancel
    const turn = transcript.endTurn("end_turn")!;
    assert.equal(turn.cancelRequested, true);
    assert.equal(turn.stopReason, "end_turn");
    assert.equal(turn.outcome, "cancelled");
    assert.deepEqual(outline(transcript).slice(1), [
      "tool done [read/completed] Read",
      "tool running [execute/failed/cancelled] Build",
    ]);
    assert.equal(transcript.requestCancel(), false);
    assert.equal(transcript.endTurn("cancelled"), undefined);
  },
);

test("a failed prompt ends the turn with the error; after a cancel it still reads cancelled", () => {
  const transcript = new Transcript();
  transcript.beginTurn([text("a")]);
  const error = new Error("boom");
  assert.equal(transcript.failTurn(error)?.outcome, "error");
  transcript.beginTurn([text("b")], { echoPrompt: false });
  transcript.requestCancel();
  const turn = transcript.failTurn(new Error("aborted"))!;
  assert.equal(turn.outcome, "cancelled");
  assert.ok(turn.error instanceof Error);
  assert.deepEqual(outline(transcript), ["user: a"]);
  transcript.beginTurn([]);
  assert.throws(() => transcript.beginTurn([text("c")]), /still running/);
});

test("listeners see each change once with the new objects; a throwing listener does not stop folding", () => {
  const errors: unknown[] = [];
  const transcript = new Transcript({ onListenerError: (error) => errors.push(error) });
  const changes: TranscriptChange[] = [];
  transcript.onChange(() => {
    throw new Error("bad listener");
  });
  const stop = transcript.onChange((change) => changes.push(change));
  transcript.apply({ sessionUpdate: "tool_call", toolCallId: "c", title: "T" });
  const first = transcript.entries[0] as ToolCallEntry;
  transcript.apply({ sessionUpdate: "tool_call_update", toolCallId: "c", status: "completed" });
  const second = transcript.entries[0] as ToolCallEntry;
  assert.notEqual(first, second);
  assert.equal(first.id, second.id);
  assert.equal(first.toolCall.status, "pending");
  assert.deepEqual(
    changes.map((change) => change.type),
    ["entry_added", "entry_updated"],
  );
  assert.equal((changes[1] as { previous: unknown }).previous, first);
  assert.equal(transcript.version, 2);
  assert.equal(errors.length, 2);
  stop();
  transcript.apply({ sessionUpdate: "plan", entries: [] });
  assert.equal(changes.length, 2);
  assert.equal(transcript.entry(second.id), second);
});

test("history replay before any turn (session/load) lands outside turns, plan snapshots per turn", () => {
  const transcript = new Transcript();
  transcript.apply({ sessionUpdate: "user_message_chunk", content: text("old question") });
  transcript.apply(agent("old answer"));
  transcript.apply({ sessionUpdate: "plan", entries: [{ content: "A", priority: "low", status: "completed" }] });
  transcript.beginTurn([text("new")]);
  transcript.apply({ sessionUpdate: "plan", entries: [{ content: "B", priority: "low", status: "pending" }] });
  transcript.apply({ sessionUpdate: "plan", entries: [{ content: "B", priority: "low", status: "completed" }] });
  assert.deepEqual(outline(transcript), [
    "user: old question",
    "agent: old answer",
    "plan: A=completed",
    "user: new",
    "plan: B=completed",
  ]);
  assert.deepEqual(
    transcript.entries.map((entry) => entry.turn),
    [undefined, undefined, undefined, 0, 0],
  );
});

test("notices become entries where they arrived, with their severity, title and description", () => {
  const transcript = new Transcript();
  transcript.beginTurn([text("go")]);
  transcript.apply(agent("working"));
  transcript.apply({
    sessionUpdate: "notice",
    severity: "warning",
    title: "Rate limited",
    description: "retrying in 5 s",
  });
  transcript.apply({ sessionUpdate: "notice", severity: "_acme_hint", title: "A newer severity", description: null });
  transcript.apply(agent("done"));
  assert.deepEqual(outline(transcript), [
    "user: go",
    "agent: working",
    "notice warning: Rate limited",
    "notice _acme_hint: A newer severity",
    "agent: done",
  ]);
  const notice = transcript.entries[2]!;
  assert.equal(notice.kind === "notice" && notice.description, "retrying in 5 s");
  assert.equal(
    transcript.entries[3]!.kind === "notice" && "description" in transcript.entries[3]!,
    false,
    "null means no description",
  );
});

test("a compaction is one entry patched in place: chunks append, updates patch summary, error and status", () => {
  const transcript = new Transcript();
  transcript.beginTurn([text("go")]);
  transcript.apply({ sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text("Earlier: ") });
  const first = transcript.entries[1]!;
  transcript.apply({
    sessionUpdate: "compaction_summary_chunk",
    compactionId: "c1",
    content: text("fixed the parser."),
  });
  transcript.apply(agent("continuing"));
  assert.deepEqual(outline(transcript), [
    "user: go",
    "compaction c1 in_progress: Earlier: fixed the parser.",
    "agent: continuing",
  ]);
  transcript.apply({ sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" });
  assert.equal(transcript.entries[1]!.id, first.id, "same entry, where it first arrived");
  assert.deepEqual(outline(transcript)[1], "compaction c1 completed: Earlier: fixed the parser.");
  transcript.apply({
    sessionUpdate: "compaction_update",
    compactionId: "c1",
    status: "completed",
    summary: [text("Summary v2")],
  });
  assert.deepEqual(outline(transcript)[1], "compaction c1 completed: Summary v2");
  transcript.apply({ sessionUpdate: "compaction_update", compactionId: "c1", status: "completed", summary: null });
  assert.deepEqual(outline(transcript)[1], "compaction c1 completed: ");
  transcript.apply({
    sessionUpdate: "compaction_update",
    compactionId: "c2",
    status: "failed",
    error: "context too small",
  });
  const failed = transcript.entries[3]!;
  assert.equal(failed.kind === "compaction" && failed.error, "context too small");
  transcript.apply({ sessionUpdate: "compaction_update", compactionId: "c2", status: "failed", error: null });
  assert.equal("error" in transcript.entries[3]!, false, "null clears the error");
});
