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
