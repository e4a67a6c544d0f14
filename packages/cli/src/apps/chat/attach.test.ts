import assert from "node:assert/strict";
import { test } from "node:test";
import { attachParams, SharedEcho, sharedEchoOf } from "./attach.js";

const received = (clientId: string, text: string) => ({
  sessionId: "s",
  update: {
    _meta: { acpkit: { promptId: "p7" } },
    sessionUpdate: "prompt_received",
    prompt: [{ type: "text", text }, { type: "image" }],
    sentBy: { clientId, name: "phone" },
  },
});

test("another client's prompt shows as a user message; the chat's own and other updates pass unchanged", () => {
  const echo = new SharedEcho();
  assert.equal(echo.attached, false);
  echo.own.add("me");
  assert.equal(echo.attached, true);
  assert.deepEqual(echo.toTranscript(received("them", "fix it")), {
    sessionId: "s",
    update: {
      sessionUpdate: "user_message_chunk",
      messageId: "shared-prompt-p7",
      content: { type: "text", text: "(phone) fix it[image]" },
    },
  });
  const own = received("me", "mine");
  assert.equal(echo.toTranscript(own), own);
  const chunk = {
    sessionId: "s",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } },
  };
  assert.equal(echo.toTranscript(chunk), chunk);
  const router = {};
  assert.equal(sharedEchoOf(router), sharedEchoOf(router));
  assert.notEqual(sharedEchoOf(router), sharedEchoOf({}));
});

test("the chat attaches with the whole history, asking for its role both ways", () => {
  assert.deepEqual(attachParams("s", "observer"), {
    sessionId: "s",
    role: "observer",
    historyPolicy: "full",
    clientInfo: { name: "acp-chat", version: "0.1.0" },
    _meta: { acpkit: { role: "observer" } },
  });
});

test("a permission request put to the controllers shows as a notice, then how it was settled and by whom", () => {
  const echo = new SharedEcho();
  echo.own.add("me");
  assert.equal(echo.fromExtension("_acpkit/session/participants", { sessionId: "s" }), undefined);
  assert.deepEqual(
    echo.fromExtension("_acpkit/session/permission_pending", {
      sessionId: "s",
      permissionId: "perm-1",
      toolCall: { toolCallId: "c1", title: "Write notes.md" },
      options: [
        { optionId: "allow", name: "Allow once", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    }),
    {
      sessionId: "s",
      update: {
        sessionUpdate: "notice",
        severity: "info",
        title: "Permission asked of the controllers: Write notes.md",
        description: "Waiting for an answer: Allow once / Reject",
      },
    },
  );
  const resolved = (permissionId: string, rest: Record<string, unknown>) =>
    echo.toTranscript({
      sessionId: "s",
      update: { sessionUpdate: "permission_resolved", ...rest, _meta: { acpkit: { permissionId } } },
    }).update as unknown as { title: string };
  const phone = { clientId: "c-9", name: "phone" };
  assert.equal(
    resolved("perm-1", { chosenOptionId: "allow", resolvedBy: phone }).title,
    "Permission answered by phone: Allow once",
  );
  // An option of a request the chat did not see waiting (it attached later) is named by its id.
  assert.equal(
    resolved("perm-2", { chosenOptionId: "reject", resolvedBy: { clientId: "me" } }).title,
    "Permission answered by you: reject",
  );
  assert.equal(
    resolved("perm-3", { outcome: { outcome: "cancelled" }, resolvedBy: { clientId: "agent" } }).title,
    "Permission request withdrawn (the turn ended)",
  );
  assert.equal(
    resolved("perm-4", { outcome: { outcome: "cancelled" }, resolvedBy: { clientId: "c-2" } }).title,
    "Permission request withdrawn (cancelled by c-2)",
  );
});
