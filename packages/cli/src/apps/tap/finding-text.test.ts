import assert from "node:assert/strict";
import { test } from "node:test";
import { ANY_CONTROL, HOSTILE_TEXT } from "@acpkit/sdk/testing";
import type { Finding } from "@acpkit/sdk/wire";
import { findingLines, findingRecord } from "./finding-text.js";

const line = `before${HOSTILE_TEXT}after`;
const finding: Finding = {
  rule: "jsonrpc.message",
  severity: "error",
  side: "agent",
  message: `The agent wrote a line that is not JSON: ${JSON.stringify(line)} \u009d0;title\u009c`,
  spec: "https://agentclientprotocol.com/protocol/transports",
  event: { index: 3, time: 1, from: "agent", type: "unparsable", line },
  path: "$.params\u001b[2J",
};

test(
  "findingLines: the peer's text (line, message, path) reaches stderr without control sequences, its visible " +
    "text kept",
  () => {
    const text = findingLines(finding, "acp tap");
    assert.doesNotMatch(text, ANY_CONTROL);
    assert.match(text, /^acp tap: error \[jsonrpc\.message\] The agent wrote a line that is not JSON: /);
    assert.match(text, /\n {4}frame #3 agent->client: before[^\n]*after\n/);
    assert.equal(text.split("\n").length, 5, "the peer's text adds no line of its own");
  },
);

test("findingRecord: the report keeps the frame exactly, as JSON with every control character escaped", () => {
  const record = findingRecord(finding);
  assert.doesNotMatch(record, ANY_CONTROL);
  const parsed = JSON.parse(record) as { message: string; path: string; frame: { text: string } };
  assert.equal(parsed.frame.text, line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
  assert.equal(parsed.message, finding.message);
  assert.equal(parsed.path, finding.path);
});
