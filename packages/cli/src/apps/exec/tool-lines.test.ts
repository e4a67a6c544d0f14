import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolLines } from "./tool-lines.js";

test("a tool's finding is shown with its continuation lines; the agent's own log is not", () => {
  const lines = new ToolLines();
  const shown = [
    "starting my-agent v2",
    "acp tap: error [schema.valid] session/update params do not match the schema",
    "    frame #7 agent->client: {...}",
    "    spec: https://agentclientprotocol.com/protocol/schema",
    "debug: turn 1",
    "  indented agent log",
    "acp replay: differs #4 agent session/update: 1 difference",
    "acp record: warning [turn.order] an update after the answer",
  ].filter((line) => lines.shows(line));
  assert.deepEqual(shown, [
    "acp tap: error [schema.valid] session/update params do not match the schema",
    "    frame #7 agent->client: {...}",
    "    spec: https://agentclientprotocol.com/protocol/schema",
    "acp replay: differs #4 agent session/update: 1 difference",
    "acp record: warning [turn.order] an update after the answer",
  ]);
});
