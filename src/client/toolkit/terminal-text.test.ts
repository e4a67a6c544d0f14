import assert from "node:assert/strict";
import { test } from "node:test";
import { sanitizeTerminalText, terminalSafeJson, TerminalTextFilter } from "./terminal-text.js";
import { ANY_CONTROL, CONTROL_SEQUENCES, HOSTILE_TEXT } from "./hostile-text.js";

test("every control sequence is removed, the text around it kept", () => {
  for (const [name, sequence] of CONTROL_SEQUENCES) assert.equal(sanitizeTerminalText(`a${sequence}b`), "ab", name);
});

test("newlines and tabs are kept; plain and non-ASCII text passes unchanged (same string)", () => {
  const plain = "line one\n\tindented — ünïcödé 😀\n";
  assert.equal(sanitizeTerminalText(plain), plain);
  assert.equal(sanitizeTerminalText("a\r\nb"), "a\nb", "CRLF keeps its LF");
  assert.equal(sanitizeTerminalText("visible\rOVERWRITE"), "visibleOVERWRITE");
});

test("streaming: a sequence split across pushes at any point is still removed whole", () => {
  const text = `before\u001b]52;c;Y2xpcA==\u001b\\middle\u001b[2Kafter\u009d0;t\u0007end`;
  for (let cut = 0; cut <= text.length; cut++) {
    const filter = new TerminalTextFilter();
    const out = filter.push(text.slice(0, cut)) + filter.push(text.slice(cut)) + filter.end();
    assert.equal(out, "beforemiddleafterend", `cut at ${cut}`);
  }
});

test("a stray string introducer swallows at most the rest of its line", () => {
  assert.equal(sanitizeTerminalText("a\u001b]0;never terminated\nnext line"), "a\nnext line");
  const filter = new TerminalTextFilter();
  const out = filter.push(`x\u001b]${"y".repeat(10_000)}z`);
  assert.ok(out === "x" + "y".repeat(10_000 - 4096) + "z", `ends after 4096 characters (kept ${out.length})`);
  assert.equal(sanitizeTerminalText("\u001b[1\nA"), "\nA", "a newline ends a CSI too");
});

test("terminalSafeJson: the same value when parsed, with no raw control character (C1 and DEL escaped too)", () => {
  const value = { text: `a${HOSTILE_TEXT}b`, nested: [{ name: "\u009b31m\u007f" }], plain: "café 😀" };
  for (const space of [undefined, 2]) {
    const json = terminalSafeJson(value, space);
    assert.doesNotMatch(json, ANY_CONTROL);
    assert.deepEqual(JSON.parse(json), value);
  }
  assert.equal(
    terminalSafeJson({ plain: "café" }),
    JSON.stringify({ plain: "café" }),
    "nothing to escape: JSON.stringify's text",
  );
});
