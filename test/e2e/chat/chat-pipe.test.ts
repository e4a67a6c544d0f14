/**
 * `acp chat` without a terminal: lines from a pipe, permission answers read as lines, no colours, no spinner, no
 * cursor movement; settled output only, in order.
 */
/* eslint-disable no-control-regex -- these tests look for escape codes */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ACP_CLI } from "../support/programs.js";

const cli = ACP_CLI;
const sdkAgent = fileURLToPath(new URL("../fixtures/chat-sdk-agent.js", import.meta.url));
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-chat-pipe-")));
after(() => rmSync(cwd, { recursive: true, force: true }));

test(
  "piped stdin: a prompt, a permission answered by a line, a mode switch, then end of input",
  { timeout: 15_000 },
  async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "" };
    delete env.NO_COLOR;
    const child = spawn(process.execPath, [cli, "chat", "--", process.execPath, sdkAgent, "--serve"], {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end("write it please\n2\n:mode code\n:mode\n");
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(code, 0, out);
    assert.doesNotMatch(out, /\u001b/, "no escape codes without a terminal");
    assert.match(
      out,
      /› write it please\n┊ thinking: Considering "write it please" with model small\.\n┌ \[edit\] Write hello\.txt ○ pending\n[\s\S]*\? Allow \[edit\] Write hello\.txt\?\n {2}1\/y Allow once[\s\S]*✓ Allow always: Write hello\.txt\n┌ \[edit\] Write hello\.txt ✓ completed[\s\S]*The file was written[\s\S]*Plan 2\/2[\s\S]*context 4,200/,
    );
    assert.match(out, /mode: Code\n {4}ask {2}Ask\n {2}● code {2}Code/);
    assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "hello\nnew line\n");
  },
);
