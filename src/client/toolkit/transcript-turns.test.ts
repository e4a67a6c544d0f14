/** Transcript: late updates, failed and cancelled turns, listeners, history replay, notices and compactions. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Transcript } from "./transcript.js";
import type { ToolCallEntry, TranscriptChange } from "./transcript-types.js";

import { agent, outline, text } from "./testing/transcript-outline.js";

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
