import assert from "node:assert/strict";
import { test } from "node:test";
import { splitCommandLine } from "./command-line.js";

test("splits words on whitespace and honours quotes and escapes, like a shell would tokenize", () => {
  assert.deepEqual(splitCommandLine("  npx  -y @acme/agent --acp "), ["npx", "-y", "@acme/agent", "--acp"]);
  assert.deepEqual(splitCommandLine(`node "my agent.js" 'it''s' a\\ b ""`), ["node", "my agent.js", "its", "a b", ""]);
  assert.deepEqual(splitCommandLine(`x "a \\"q\\" \\\\ \\$HOME \\n"`), ["x", 'a "q" \\ $HOME \\n']);
  assert.deepEqual(splitCommandLine("x 'a\\b'"), ["x", "a\\b"]);
});

test("nothing is expanded or run: shell syntax stays literal", () => {
  assert.deepEqual(splitCommandLine("agent $(rm -rf ~) `id` ; echo hi | cat > /tmp/x *"), [
    "agent",
    "$(rm",
    "-rf",
    "~)",
    "`id`",
    ";",
    "echo",
    "hi",
    "|",
    "cat",
    ">",
    "/tmp/x",
    "*",
  ]);
  assert.deepEqual(splitCommandLine(`agent "$(touch /tmp/pwned)"`), ["agent", "$(touch /tmp/pwned)"]);
});

test("unterminated quotes, a trailing backslash and an empty line are refused", () => {
  assert.throws(() => splitCommandLine(`agent "open`), /unterminated " quote/);
  assert.throws(() => splitCommandLine(`agent 'open`), /unterminated ' quote/);
  assert.throws(() => splitCommandLine("agent \\"), /lone backslash/);
  assert.throws(() => splitCommandLine("   "), /empty/);
});
