import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestPermissionRequest } from "@acpkit/sdk";
import { plainPainter } from "./paint.js";
import { optionForAnswer, optionForKey, renderPermission } from "./permission-prompt.js";

const request: RequestPermissionRequest = {
  sessionId: "s",
  toolCall: { toolCallId: "t1", title: "Write a.txt", kind: "edit" },
  options: [
    { optionId: "ok", name: "Allow", kind: "allow_once" },
    { optionId: "always", name: "Always", kind: "allow_always" },
    { optionId: "no", name: "Reject", kind: "reject_once" },
  ],
};

test("the prompt lists the agent's own options with their keys", () => {
  assert.deepEqual(renderPermission(request, 60, plainPainter, true), [
    "? Allow [edit] Write a.txt?",
    "  1/y Allow (allow once)",
    "  2/a Always (allow always)",
    "  3/n Reject (reject once)",
    "  press a key · Esc or Ctrl-C cancels the turn",
  ]);
});

test("keys: digits, kind letters, Esc and Ctrl-C cancel, others mean nothing", () => {
  assert.equal(optionForKey(request.options, { sequence: "2", name: "2" }), "always");
  assert.equal(optionForKey(request.options, { sequence: "n", name: "n" }), "no");
  assert.equal(optionForKey(request.options, { sequence: "Y", name: "y", shift: true } as never), "ok");
  assert.equal(optionForKey(request.options, { name: "escape" }), "cancel");
  assert.equal(optionForKey(request.options, { name: "c", ctrl: true }), "cancel");
  assert.equal(optionForKey(request.options, { sequence: "r", name: "r" }), undefined);
  assert.equal(optionForKey(request.options, { sequence: "9", name: "9" }), undefined);
});

test("typed answers: number, letter, id, name; empty rejects", () => {
  assert.equal(optionForAnswer(request.options, "1"), "ok");
  assert.equal(optionForAnswer(request.options, "a"), "always");
  assert.equal(optionForAnswer(request.options, "Reject"), "no");
  assert.equal(optionForAnswer(request.options, " always "), "always");
  assert.equal(optionForAnswer(request.options, ""), "no");
  assert.equal(optionForAnswer(request.options, "maybe"), undefined);
});
