import assert from "node:assert/strict";
import { test } from "node:test";
import { painterFor } from "../shared/painter.js";
import { TranscriptRouter } from "@acpkit/sdk/client-toolkit";
import type { SessionNotification } from "@acpkit/sdk";
import { TextRenderer } from "./render-text.js";

function setup(verbose = false) {
  let out = "";
  let err = "";
  const router = new TranscriptRouter();
  const transcript = router.open("s");
  const plain = painterFor({ isTTY: false });
  const renderer = new TextRenderer({
    out: (t) => (out += t),
    err: (t) => (err += t),
    outPaint: plain,
    errPaint: plain,
    verbose,
    transcript: () => transcript,
  });
  const send = (update: SessionNotification["update"], beforeTurn = false) => {
    const notification = { sessionId: "s", update };
    router.route(notification);
    renderer.update(notification, beforeTurn ? "before" : "turn");
  };
  return { renderer, send, transcript, out: () => out, err: () => err };
}

test(
  "text streams to stdout; tool lines start on a fresh line when the call finishes; history before the turn is " +
    "not shown",
  () => {
    const t = setup();
    t.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "old history" } }, true);
    t.transcript.beginTurn([{ type: "text", text: "go" }]);
    t.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Looking" } });
    t.send({ sessionUpdate: "tool_call", toolCallId: "a", title: "Read x", kind: "read", status: "in_progress" });
    t.send({ sessionUpdate: "tool_call", toolCallId: "b", title: "Run tests", kind: "execute", status: "in_progress" });
    t.send({ sessionUpdate: "tool_call_update", toolCallId: "a", status: "completed" });
    t.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } });
    t.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } });
    t.transcript.requestCancel();
    t.renderer.finish({ exitCode: 130 });
    assert.equal(t.out(), "Looking\n• Read x (read) ✓\nDone.\n• Run tests (execute) cancelled\n");
    assert.equal(t.err(), "");
  },
);

test("verbose: thoughts, plans, allowed permissions and agent stderr on stderr", () => {
  const t = setup(true);
  t.transcript.beginTurn([]);
  t.send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } });
  t.send({
    sessionUpdate: "plan",
    entries: [
      { content: "A", priority: "high", status: "completed" },
      { content: "B", priority: "low", status: "pending" },
    ],
  });
  const request = {
    sessionId: "s",
    toolCall: { toolCallId: "w", title: "Write f", kind: "edit" as const },
    options: [{ optionId: "y", name: "Allow", kind: "allow_once" as const }],
  };
  t.renderer.permission(request, { outcome: { outcome: "selected", optionId: "y" } }, "allow-all");
  t.renderer.stderr("debug: hi");
  assert.equal(
    t.err(),
    "thinking: hmm\nplan [x] A  [ ] B\npermission Write f (edit): Allow [allow_once] (allow-all)\nagent| debug: hi\n",
  );
});

test("a failed tool call shows the reason the agent gave (its last text content), made safe, on one line", () => {
  const t = setup();
  t.transcript.beginTurn([{ type: "text", text: "go" }]);
  t.send({ sessionUpdate: "tool_call", toolCallId: "a", title: "Edit x", kind: "edit", status: "pending" });
  t.send({
    sessionUpdate: "tool_call_update",
    toolCallId: "a",
    status: "failed",
    content: [{ type: "content", content: { type: "text", text: "the user said\nno \u001b[31mthanks" } }],
  });
  t.send({ sessionUpdate: "tool_call", toolCallId: "b", title: "Run", kind: "execute", status: "pending" });
  t.send({ sessionUpdate: "tool_call_update", toolCallId: "b", status: "failed" });
  t.renderer.finish({ exitCode: 0 });
  assert.equal(t.out(), "• Edit x (edit) ✗ failed: the user said no thanks\n• Run (execute) ✗ failed\n");
});
