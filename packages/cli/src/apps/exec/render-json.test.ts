import assert from "node:assert/strict";
import { test } from "node:test";
import { Transcript } from "@acpkit/sdk/client-toolkit";
import { resultObject } from "./render-json.js";

test(
  "--format json's text is the agent's text exactly as sent: no blank lines of the renderer between " + "messages",
  () => {
    const transcript = new Transcript();
    transcript.beginTurn([{ type: "text", text: "fix it" }]);
    const say = (text: string, messageId: string) =>
      transcript.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text }, messageId });
    say("Reading the file. ", "m1");
    transcript.apply({
      sessionUpdate: "tool_call",
      toolCallId: "t1",
      title: "Read a.txt",
      kind: "read",
      status: "completed",
    });
    say("Done: ", "m2");
    say("it is fixed.", "m2");
    transcript.endTurn("end_turn");
    const result = resultObject({ exitCode: 0, sessionId: "s", stopReason: "end_turn", transcript });
    assert.equal(result.text, "Reading the file. Done: it is fixed.");
  },
);
