import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ParticipantsView, type AttachSessionResult } from "./shared-session.js";

const pending = (permissionId: string, toolCallId: string) => ({
  sessionId: "s1",
  permissionId,
  toolCall: { toolCallId, title: `Edit ${toolCallId}` },
  options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  askedAt: "2026-11-27T20:00:00.000Z",
});

const resolved = (update: Record<string, unknown>) => ({
  sessionId: "s1",
  update: { sessionUpdate: "permission_resolved", ...update },
});

describe("ParticipantsView: pending permission requests", () => {
  it("starts from the attach answer and keeps each request once (the notification repeats it)", () => {
    const attached = {
      sessionId: "s1",
      clientId: "c1",
      role: "observer",
      historyPolicy: "pending_only",
      connectedClients: [],
      _meta: { acpkit: { pendingPermissions: [pending("p1", "call-1")] } },
    } satisfies AttachSessionResult;
    const view = new ParticipantsView("s1", attached);
    let changes = 0;
    view.onChange(() => changes++);
    assert.deepEqual(
      view.pendingPermissions.map((one) => one.permissionId),
      ["p1"],
    );
    assert.equal(view.apply("_acpkit/session/permission_pending", pending("p1", "call-1")), false);
    assert.equal(view.apply("_acpkit/session/permission_pending", pending("p2", "call-2")), true);
    assert.equal(
      view.apply("_acpkit/session/permission_pending", { ...pending("p3", "call-3"), sessionId: "s2" }),
      false,
    );
    assert.deepEqual(
      view.pendingPermissions.map((one) => [one.permissionId, one.toolCall?.toolCallId]),
      [
        ["p1", "call-1"],
        ["p2", "call-2"],
      ],
    );
    assert.equal(changes, 1);
  });

  it("a resolution removes its request (by permissionId) and says who answered, how and when", () => {
    const view = new ParticipantsView("s1");
    view.apply("_acpkit/session/permission_pending", pending("p1", "call-1"));
    view.apply("_acpkit/session/permission_pending", pending("p2", "call-1"));
    const by = { clientId: "c9", name: "editor", version: "1" };
    assert.equal(
      view.apply(
        "session/update",
        resolved({
          toolCallId: "call-1",
          chosenOptionId: "allow",
          outcome: { outcome: "selected", optionId: "allow" },
          resolvedBy: by,
          _meta: { acpkit: { permissionId: "p2", resolvedAt: "2026-11-27T20:00:01.000Z", seq: 7 } },
        }),
      ),
      true,
    );
    assert.deepEqual(
      view.pendingPermissions.map((one) => one.permissionId),
      ["p1"],
      "only p2 (the same tool call as p1) is settled",
    );
    assert.deepEqual(view.lastResolved, {
      permissionId: "p2",
      toolCallId: "call-1",
      chosenOptionId: "allow",
      outcome: { outcome: "selected", optionId: "allow" },
      resolvedBy: by,
      resolvedAt: "2026-11-27T20:00:01.000Z",
    });
  });

  it("from a server that sends no permissionId, a resolution matches by tool call", () => {
    const view = new ParticipantsView("s1");
    view.apply("_acpkit/session/permission_pending", pending("p1", "call-1"));
    view.apply("_acpkit/session/permission_pending", pending("p2", "call-2"));
    view.apply("session/update", resolved({ toolCallId: "call-2", outcome: { outcome: "cancelled" } }));
    assert.deepEqual(
      view.pendingPermissions.map((one) => one.permissionId),
      ["p1"],
    );
    assert.equal(view.lastResolved?.chosenOptionId, undefined);
    assert.deepEqual(view.lastResolved?.outcome, { outcome: "cancelled" });
  });
});
