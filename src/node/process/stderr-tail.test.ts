import assert from "node:assert/strict";
import { test } from "node:test";
import { StderrTail } from "./stderr-tail.js";

test("keeps the last N lines, across chunk boundaries and CRLF, with an unfinished last line", () => {
  const seen: string[] = [];
  const tail = new StderrTail({ maxLines: 3, onLine: (line) => seen.push(line) });
  tail.push("one\r\ntw");
  tail.push(Buffer.from("o\nthree\nfour\nfi"));
  assert.deepEqual(tail.lines(), ["three", "four", "fi"]);
  assert.deepEqual(seen, ["one", "two", "three", "four"]);
  tail.end();
  assert.deepEqual(tail.lines(), ["three", "four", "fi"]);
  assert.deepEqual(seen.at(-1), "fi");
});

test("decodes UTF-8 split across chunks and cuts huge lines", () => {
  const tail = new StderrTail({ maxLineLength: 5 });
  const bytes = Buffer.from("é😀\n");
  for (const byte of bytes) tail.push(Buffer.from([byte]));
  assert.deepEqual(tail.lines(), ["é😀"]);
  tail.push("x".repeat(100_000));
  tail.push("y".repeat(100_000));
  assert.equal(tail.lines().at(-1), "xxxxx…");
});
