/**
 * Every place `acp exec` shows agent text, fed every terminal control sequence: nothing reaches the terminal but
 * the text (and our own colours); `--format json|ndjson` stay faithful (JSON-escaped, not stripped).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { painterFor } from "../shared/painter.js";
import { TranscriptRouter } from "@acpkit/sdk/client-toolkit";
import { CONTROL_SEQUENCES } from "@acpkit/sdk/testing";
import type { RequestPermissionRequest, SessionNotification } from "@acpkit/sdk";
import { JsonRenderer, NdjsonRenderer } from "./render-json.js";
import type { ExecRenderer } from "./renderer.js";
import { TextRenderer } from "./render-text.js";

/** Every display path of a renderer, each fed `a<sequence>b`-style text. */
function feedEverything(renderer: ExecRenderer, route: (n: SessionNotification) => void, sequence: string): void {
  const t = (label: string) => `${label}<${sequence}>`;
  const send = (update: SessionNotification["update"], placement: "turn" | "late" = "turn") => {
    const notification = { sessionId: "s", update };
    route(notification);
    renderer.update(notification, placement);
  };
  renderer.session({
    sessionId: t("session"),
    how: "new",
    agent: { name: t("name"), title: t("title"), version: t("version") },
    protocolVersion: 1,
  });
  send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: t("thought") } });
  send({ sessionUpdate: "plan", entries: [{ content: t("plan"), priority: "high", status: "pending" }] });
  send({ sessionUpdate: "tool_call", toolCallId: "t1", title: t("tool"), kind: "edit", status: "in_progress" });
  send({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
  send({
    sessionUpdate: "tool_call",
    toolCallId: "t2",
    title: t("tool2"),
    kind: t("kind") as "edit",
    status: t("status") as "pending",
  });
  // A sequence split across two chunks of the message stream.
  const half = Math.ceil(sequence.length / 2);
  send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `message<${sequence.slice(0, half)}` } });
  send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${sequence.slice(half)}>` } });
  send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t(" late") } }, "late");
  const request: RequestPermissionRequest = {
    sessionId: "s",
    toolCall: { toolCallId: "t3", title: t("asks"), kind: "execute" },
    options: [{ optionId: "no", name: t("option"), kind: "reject_once" }],
  };
  renderer.permission(request, { outcome: { outcome: "selected", optionId: "no" } }, t("policy"));
  renderer.stderr(t("stderr"));
  renderer.note(t("note"));
  renderer.finish({ exitCode: 1, sessionId: "s", error: t("error"), warnings: [t("warning")] });
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

test("text format, colours on: every display path, every sequence; only text and our own colours come out", () => {
  for (const [name, sequence] of CONTROL_SEQUENCES) {
    let out = "";
    let err = "";
    const router = new TranscriptRouter();
    const transcript = router.open("s");
    transcript.beginTurn([]);
    const colours = painterFor({ isTTY: true }, {});
    const renderer = new TextRenderer({
      out: (x) => (out += x),
      err: (x) => (err += x),
      outPaint: colours,
      errPaint: colours,
      verbose: true,
      transcript: () => transcript,
    });
    feedEverything(renderer, (n) => router.route(n), sequence);
    // Our own colours are SGR sequences we wrote; take them out, then nothing else may remain.
    // eslint-disable-next-line no-control-regex
    const ours = /\u001b\[(?:1|2|22|32|33|36|39)m/g;
    for (const [stream, text] of [
      ["stdout", out],
      ["stderr", err],
    ] as const) {
      const rest = text.replace(ours, "");
      assert.ok(!CONTROL.test(rest), `${name} reached ${stream}: ${JSON.stringify(rest)}`);
    }
    assert.match(out, /message<> late<>/, name);
    for (const label of ["tool<>", "tool2<>", "kind<>"]) assert.ok(out.includes(label), `${name}: ${label} shown`);
    for (const label of ["thought<>", "plan<>", "asks<>", "option<>", "policy<>", "stderr<>", "note<>", "title<>"])
      assert.ok(err.includes(label), `${name}: ${label} shown`);
    assert.ok(out.includes("\u001b[36m"), "our colours still work");
  }
});

test("json and ndjson stay faithful: the agent's text is JSON-escaped as sent; diagnostics on stderr are safe", () => {
  const sequence = CONTROL_SEQUENCES.map(([, s]) => s).join("");
  for (const Renderer of [JsonRenderer, NdjsonRenderer]) {
    let out = "";
    let err = "";
    const router = new TranscriptRouter();
    const transcript = router.open("s");
    transcript.beginTurn([]);
    const renderer = new Renderer(
      (x) => (out += x),
      (x) => (err += x),
    );
    feedEverything(renderer, (n) => router.route(n), sequence);
    assert.ok(!CONTROL.test(out), "JSON escapes every control character");
    assert.ok(!CONTROL.test(err), "diagnostics are safe");
    const values = out
      .trim()
      .split(Renderer === JsonRenderer ? /^(?![\s\S])/ : "\n")
      .map((line) => JSON.parse(line) as unknown);
    assert.ok(
      JSON.stringify(values).includes(JSON.stringify(`error<${sequence}>`).slice(1, -1)),
      `${Renderer.name}: the error is kept as sent`,
    );
  }
});
