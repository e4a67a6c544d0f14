import assert from "node:assert/strict";
import { test } from "node:test";
import { ANY_CONTROL, HOSTILE_TEXT } from "@acpkit/sdk/testing";
import { divergenceText } from "./replay-front.js";

test("acp replay: a divergence quotes what the agent sent without terminal control sequences", () => {
  const text = divergenceText({
    kind: "differs",
    entry: 4,
    frame: `agent session/update ${HOSTILE_TEXT}agent_message_chunk`,
    message: `the agent sent${HOSTILE_TEXT} something else`,
    differences: [
      { path: `$.params.update.content.text${HOSTILE_TEXT}`, expected: "hello", actual: `a\u009b2Jb${HOSTILE_TEXT}` },
    ],
  });
  assert.doesNotMatch(text, ANY_CONTROL);
  assert.match(
    text,
    /^ {2}differs {4}#5 agent session\/update agent_message_chunk: the agent sent something else\n {13}\$\.params\.update\.content\.text: expected "hello", got "a\\u009b2Jb/,
  );
});
