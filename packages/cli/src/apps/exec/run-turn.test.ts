import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "@acpkit/sdk";
import { agentErrorText } from "./run-turn.js";

test("an agent's error: its message, and the detail it put in data when the message says little", () => {
  assert.equal(
    agentErrorText(RequestError.internalError({ details: "stream disconnected: api.openai.com" })),
    "Internal error (stream disconnected: api.openai.com)",
  );
  assert.equal(
    agentErrorText(new RequestError(-32000, "Authentication required", { message: "log in first" })),
    "Authentication required (log in first)",
  );
  assert.equal(agentErrorText(new RequestError(-1, "boom: details here", "details here")), "boom: details here");
  assert.equal(agentErrorText(new Error("plain")), "plain");
});
