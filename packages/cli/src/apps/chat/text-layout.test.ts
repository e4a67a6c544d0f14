/* eslint-disable no-control-regex -- these tests look for escape codes */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ansiPainter } from "./paint.js";
import {
  append,
  indent,
  paintSegments,
  sanitize,
  stripAnsi,
  truncate,
  visibleWidth,
  wrapSegments,
  wrapText,
} from "./text-layout.js";

test("wrapText breaks at spaces, cuts long words, keeps blank lines", () => {
  assert.deepEqual(wrapText("the quick brown fox jumps", 10), ["the quick", "brown fox", "jumps"]);
  assert.deepEqual(wrapText("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
  assert.deepEqual(wrapText("a\n\nb", 5), ["a", "", "b"]);
  assert.deepEqual(wrapText("", 5), [""]);
});

test("styled segments wrap without splitting an escape sequence, and lines fit the width", () => {
  const lines = wrapSegments(
    [{ text: "plain words then " }, { text: "bold words here", style: ansiPainter.bold }],
    12,
  ).map(paintSegments);
  for (const line of lines) assert.ok(visibleWidth(line) <= 12, line);
  assert.deepEqual(lines.map(stripAnsi), ["plain words", "then bold", "words here"]);
  assert.match(lines[1]!, /\u001b\[1mbold\u001b\[22m$/);
});

test("sanitize removes escape sequences and control characters an agent might send", () => {
  assert.equal(sanitize("a\u001b[2Jb\u001b]0;title\u0007c\td\re\r\nf\u0007"), "abc  d\ne\nf");
});

test("indent and truncate", () => {
  assert.deepEqual(indent(["a", "b"], "- ", "  "), ["- a", "  b"]);
  assert.equal(truncate("abcdef", 4), "abc…");
  assert.equal(truncate("abc", 4), "abc");
});

test(
  "a word far longer than the line is cut into line-sized " + "pieces; append takes more lines than a spread could",
  () => {
    const word = "x".repeat(100_003);
    const lines = wrapSegments([{ text: word }], 100).map(paintSegments);
    assert.equal(lines.length, 1001);
    assert.ok(lines.slice(0, -1).every((line) => line.length === 100));
    assert.equal(lines.at(-1), "xxx");
    const many = Array.from({ length: 300_000 }, (_, i) => String(i));
    assert.equal(append(["first"], many).length, 300_001);
  },
);
