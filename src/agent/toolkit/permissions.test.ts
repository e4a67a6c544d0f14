import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestPermissionResponse } from "../../protocol/index.js";
import { isAbortError, TurnCancelledError } from "./cancelled.js";
import { askPermission, ONCE_PERMISSION_OPTIONS, PermissionMemory, type PermissionContext } from "./permissions.js";

function context(answers: RequestPermissionResponse[]): PermissionContext & { asked: unknown[]; cancelled: boolean } {
  const ctx = {
    sessionId: "s",
    permissions: new PermissionMemory(),
    asked: [] as unknown[],
    cancelled: false,
    request<R>(_method: string, params: unknown): Promise<R> {
      ctx.asked.push(params);
      return Promise.resolve(answers.shift() as R);
    },
    cancel() {
      ctx.cancelled = true;
    },
  };
  return ctx;
}

test("reject_always is remembered per kind; once answers are not; a cancelled outcome cancels the turn", async () => {
  const ctx = context([
    { outcome: { outcome: "selected", optionId: "reject_always" } },
    { outcome: { outcome: "selected", optionId: "allow_once" } },
    { outcome: { outcome: "selected", optionId: "allow_once" } },
    { outcome: { outcome: "cancelled" } },
  ]);
  assert.deepEqual(await askPermission(ctx, { toolCallId: "1", kind: "delete" }), {
    allowed: false,
    optionId: "reject_always",
    kind: "reject_always",
    remembered: false,
  });
  assert.deepEqual(await askPermission(ctx, { toolCallId: "2", kind: "delete" }), { allowed: false, remembered: true });
  assert.equal((await askPermission(ctx, { toolCallId: "3", kind: "read" }, ONCE_PERMISSION_OPTIONS)).allowed, true);
  assert.equal((await askPermission(ctx, { toolCallId: "4", kind: "read" })).remembered, false);
  assert.equal(ctx.asked.length, 3);
  await assert.rejects(
    askPermission(ctx, { toolCallId: "5" }),
    (error) => error instanceof TurnCancelledError && isAbortError(error),
  );
  assert.equal(ctx.cancelled, true);
});
