import assert from "node:assert/strict";
import { test } from "node:test";
import { complete, type CompletionContext } from "./completion.js";

const tree: Record<string, { name: string; directory: boolean }[]> = {
  "": [
    { name: "src", directory: true },
    { name: "notes.txt", directory: false },
    { name: ".env", directory: false },
  ],
  "src/": [{ name: "main.ts", directory: false }],
};
const context: CompletionContext = {
  slashCommands: ["plan", "run", "read"],
  localCommands: ["mode", "model", "quit"],
  listDir: (dir) => tree[dir] ?? [],
};

test("slash commands complete at the start of the line only", () => {
  assert.deepEqual(complete("/r", context), [["/read ", "/run "], "/r"]);
  assert.deepEqual(complete("say /r", context), [[], "/r"]);
});

test("local commands complete after ':'", () => {
  assert.deepEqual(complete(":mo", context), [[":mode ", ":model "], ":mo"]);
});

test("@paths complete anywhere, directories end with '/', hidden files only when asked", () => {
  assert.deepEqual(complete("look at @", context), [["@notes.txt", "@src/"], "@"]);
  assert.deepEqual(complete("@src/m", context), [["@src/main.ts"], "@src/m"]);
  assert.deepEqual(complete("@.e", context), [["@.env"], "@.e"]);
  assert.deepEqual(complete("plain", context), [[], "plain"]);
});
