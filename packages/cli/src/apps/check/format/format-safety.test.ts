import assert from "node:assert/strict";
import { test } from "node:test";
import { ANY_CONTROL, HOSTILE_TEXT } from "@acpkit/sdk/testing";
import type { CheckReport } from "../results.js";
import { formatJunit } from "./junit.js";
import { formatTable, type TablePaint } from "./table.js";

const peer = (text: string) => `x${HOSTILE_TEXT}${text}`;
const report: CheckReport = {
  kind: "agent",
  command: ["agent", "--serve"],
  tool: { name: "acp", version: "0" },
  started: "2025-01-01T00:00:00.000Z",
  durationMs: 10,
  peerInfo: { name: peer("name"), version: peer("1.0") },
  results: [
    {
      id: "initialize",
      title: "initialize",
      spec: "https://agentclientprotocol.com/protocol/initialization",
      status: "failed",
      message: peer("the agent answered -32603: boom"),
      warnings: [peer("warning")],
      findings: [
        {
          rule: "jsonrpc.message",
          severity: "error",
          side: "agent",
          message: peer("not JSON"),
          spec: "https://x",
          frame: peer("frame"),
        },
      ],
      measurements: {},
      durationMs: 5,
    },
    {
      id: "ext",
      title: "extensions",
      spec: "https://y",
      status: "passed",
      message: peer("note"),
      warnings: [],
      findings: [],
      measurements: { startupMs: 3 },
      durationMs: 1,
    },
  ],
  summary: { passed: 1, failed: 1, skipped: 0, "not-exercised": 0, "expected-failure": 0, "unexpected-pass": 0 },
};

/** Our own colours, which must be the only escapes in the output. */
const paint: TablePaint = {
  green: (t) => `\u001b[32m${t}\u001b[39m`,
  red: (t) => `\u001b[31m${t}\u001b[39m`,
  yellow: (t) => `\u001b[33m${t}\u001b[39m`,
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
};
// eslint-disable-next-line no-control-regex -- our own SGR codes
const OUR_COLOURS = /\u001b\[(?:32|39|31|33|2|22)m/g;

test(
  "acp check's table: the peer's name, messages, findings, frames and warnings reach the terminal without " +
    "control sequences; only our colours",
  () => {
    const text = formatTable(report, paint);
    assert.doesNotMatch(text.replace(OUR_COLOURS, ""), ANY_CONTROL);
    for (const visible of [
      "xname",
      "x1.0",
      "xthe agent answered -32603: boom",
      "xwarning",
      "xnot JSON",
      "xframe",
      "xnote",
    ])
      assert.ok(text.includes(visible), `${visible} shown`);
    assert.doesNotMatch(formatTable(report), ANY_CONTROL, "plain: no escape at all");
  },
);

test(
  "acp check's JUnit XML keeps DEL and C1 controls as character " + "references and carries no raw control character",
  () => {
    const xml = formatJunit(report);
    assert.doesNotMatch(xml, ANY_CONTROL);
    assert.match(xml, /&#x9b;2J/);
    assert.match(xml, /&#x9d;0;pwned&#x9c;/);
  },
);
