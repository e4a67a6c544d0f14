import assert from "node:assert/strict";
import { test } from "node:test";
import { findMentions, parseInput } from "./input.js";

test("local commands, slash commands, prompts and the :: escape", () => {
  assert.deepEqual(parseInput("  "), { kind: "empty" });
  assert.deepEqual(parseInput(":mode  code "), { kind: "local", name: "mode", args: ["code"], rest: "code" });
  assert.deepEqual(parseInput(":QUIT"), { kind: "local", name: "quit", args: [], rest: "" });
  assert.deepEqual(parseInput("/review the @src/a.ts file"), {
    kind: "prompt",
    text: "/review the @src/a.ts file",
    command: { name: "review", input: "the @src/a.ts file" },
    mentions: ["src/a.ts"],
  });
  assert.deepEqual(parseInput("::) smile"), { kind: "prompt", text: ":) smile", mentions: [] });
  assert.deepEqual(parseInput("hello"), { kind: "prompt", text: "hello", mentions: [] });
});

test("mentions: at a word start, quoted for spaces, trailing punctuation dropped, no emails, no duplicates", () => {
  assert.deepEqual(findMentions('see @a.txt, @"my file.md" and me@example.com then @a.txt.'), ["a.txt", "my file.md"]);
  assert.deepEqual(findMentions("@dir/"), ["dir/"]);
});
