/* eslint-disable no-control-regex -- these tests look for escape codes */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ansiPainter, plainPainter } from "./paint.js";
import { renderMarkdown } from "./render-markdown.js";
import { stripAnsi } from "./text-layout.js";

const md = [
  "# Title",
  "",
  "Some **bold** and `code` and a [link](https://x.dev).",
  "",
  "- one",
  "- two that is long enough to wrap around",
  "  1. nested",
  "",
  "```ts",
  "const x = 1;",
  "```",
  "> quoted",
].join("\n");

test("Markdown renders to plain lines without colour (markers kept where they carry meaning)", () => {
  assert.deepEqual(renderMarkdown(md, 30, plainPainter), [
    "# Title",
    "",
    "Some bold and `code` and a",
    "link (https://x.dev).",
    "",
    "• one",
    "• two that is long enough to",
    "  wrap around",
    "  1. nested",
    "",
    "  ```ts",
    "  const x = 1;",
    "│ quoted",
  ]);
});

test("with colour the same text is styled, and fits the width", () => {
  const lines = renderMarkdown(md, 30, ansiPainter);
  assert.equal(stripAnsi(lines[0]!), "Title");
  assert.match(lines[2]!, /\u001b\[1mbold\u001b\[22m/);
  for (const line of lines) assert.ok(stripAnsi(line).length <= 30, line);
});

test("an unclosed fence (still streaming) renders as code so far", () => {
  assert.deepEqual(renderMarkdown("look:\n```\nlet a", 40, plainPainter), ["look:", "  ```", "  let a"]);
});
