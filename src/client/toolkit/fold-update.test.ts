import assert from "node:assert/strict";
import { test } from "node:test";
import { appendContent, mergeToolCall, patchInfo, toUsage } from "./fold-update.js";

test("mergeToolCall never mutates its inputs and keeps fields from newer agents", () => {
  const first = mergeToolCall(undefined, { toolCallId: "c", title: "T", kind: "read" });
  const frozen = Object.freeze({ ...first });
  const update = Object.freeze({
    toolCallId: "c",
    status: "completed" as const,
    futureField: 1,
    _meta: { trace: "x" },
  });
  const next = mergeToolCall(frozen, update);
  assert.deepEqual(next, {
    toolCallId: "c",
    title: "T",
    kind: "read",
    status: "completed",
    content: [],
    locations: [],
    futureField: 1,
    _meta: { trace: "x" },
  });
  assert.equal(frozen.status, "pending");
  assert.equal(
    "sessionUpdate" in mergeToolCall(undefined, { sessionUpdate: "tool_call", toolCallId: "d", title: "" } as never),
    false,
  );
});

test("appendContent joins text immutably; patchInfo clears on null; toUsage drops a null cost", () => {
  const content = Object.freeze([{ type: "text" as const, text: "a" }]);
  assert.deepEqual(appendContent(content, { type: "text", text: "b" }), [{ type: "text", text: "ab" }]);
  assert.equal(content[0]!.text, "a");
  assert.deepEqual(patchInfo({ title: "x", _meta: { a: 1 } }, { title: null, _meta: null, updatedAt: "t" }), {
    updatedAt: "t",
  });
  assert.deepEqual(toUsage({ used: 1, size: 2, cost: null }), { used: 1, size: 2 });
});
