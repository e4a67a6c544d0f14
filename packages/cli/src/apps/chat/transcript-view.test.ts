/* eslint-disable no-control-regex -- these tests look for escape codes */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Transcript } from "@acpkit/sdk/client-toolkit";
import { LiveView } from "./live-view.js";
import { plainPainter } from "./paint.js";
import { VirtualScreen } from "./testing/virtual-screen.js";
import { TranscriptView } from "./transcript-view.js";

function setup(tty: boolean, rows = 24) {
  const screen = new VirtualScreen(60, rows);
  let written = "";
  const view = new LiveView({
    write: (text) => ((written += text), screen.write(text)),
    size: () => ({ columns: 60, rows }),
    tty,
  });
  let footer: string[] = [];
  const transcriptView = new TranscriptView(view, { paint: plainPainter, footer: () => footer });
  const transcript = new Transcript();
  transcriptView.attach(transcript);
  return {
    screen,
    transcript,
    transcriptView,
    setFooter: (lines: string[]) => (footer = lines),
    written: () => written,
  };
}

function streamTurn(transcript: Transcript, transcriptView: TranscriptView, step: () => void) {
  transcript.beginTurn([{ type: "text", text: "do it" }]);
  transcript.apply({ sessionUpdate: "plan", entries: [{ content: "Edit", priority: "high", status: "in_progress" }] });
  for (const word of ["Working ", "on ", "it."]) {
    transcript.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } });
    transcriptView.render();
    step();
  }
  transcript.apply({
    sessionUpdate: "tool_call",
    toolCallId: "t",
    title: "Edit a.txt",
    kind: "edit",
    status: "in_progress",
  });
  transcriptView.render();
  step();
  transcript.apply({ sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" });
  transcript.apply({ sessionUpdate: "plan", entries: [{ content: "Edit", priority: "high", status: "completed" }] });
  transcript.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "All done." } });
  transcriptView.render();
  transcript.endTurn("end_turn");
}

const expected = [
  "› do it",
  "Working on it.",
  "┌ [edit] Edit a.txt ✓ completed",
  "All done.",
  "Plan 1/1",
  "  [x] Edit",
];

test("on a TTY the live region streams in place and the final screen holds each entry once, no spinner left", () => {
  const { screen, transcript, transcriptView, setFooter } = setup(true);
  setFooter(["⠋ working"]);
  const seen: string[][] = [];
  streamTurn(transcript, transcriptView, () => seen.push(screen.lines()));
  setFooter([]);
  transcriptView.render();
  assert.deepEqual(screen.history(), expected);
  // While streaming, the partial message, the live plan and the footer were on screen.
  assert.deepEqual(seen[1], ["› do it", "Working on", "Plan 0/1", "  [>] Edit", "⠋ working"]);
});

test("without a TTY only settled entries are written, in order, once, with no escape codes", () => {
  const { screen, transcript, transcriptView, written } = setup(false);
  streamTurn(transcript, transcriptView, () => {});
  assert.deepEqual(screen.history(), expected);
  assert.doesNotMatch(written(), /\u001b/);
});

test("a live region taller than the screen shows its tail; nothing is lost once committed", () => {
  const { screen, transcript, transcriptView } = setup(true, 6);
  transcript.beginTurn([{ type: "text", text: "go" }]);
  transcript.apply({
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n\n") },
  });
  transcriptView.render();
  assert.equal(screen.lines().length, 6);
  assert.match(screen.lines()[1]!, /more lines above/);
  transcript.endTurn("end_turn");
  assert.deepEqual(
    screen.history().filter((line) => line.startsWith("line")),
    Array.from({ length: 10 }, (_, i) => `line ${i}`),
  );
  assert.ok(!screen.history().some((line) => /more lines above/.test(line)));
});

test("history replayed before any turn is committed at once", () => {
  const { screen, transcript, transcriptView } = setup(true);
  transcript.apply({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "earlier" } });
  transcript.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "answer" } });
  transcriptView.render();
  assert.deepEqual(screen.history(), ["› earlier", "answer"]);
});
