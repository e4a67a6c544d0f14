/**
 * `acp chat` in a real pseudo-terminal (python3's pty module, see pty_driver.py): typing, Tab completion, reading
 * the screen, answering permission prompts by key, Ctrl-C cancelling a turn and twice quitting, `:` commands.
 * Against an agent on the official SDK (the 1.x classes of sdk-1.9, the alias of 1.9.0), the reference agent (`acp
 * agent`) and the demo agent.
 */
/* eslint-disable no-control-regex -- these tests look for escape codes */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { PtySession } from "./pty-session.js";
import { ACP_CLI, DEMO_AGENT } from "../support/programs.js";

const cli = ACP_CLI;
const sdkAgent = fileURLToPath(new URL("../fixtures/chat-sdk-agent.js", import.meta.url));
const demoAgent = DEMO_AGENT;
const node = process.execPath;
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-chat-")));
after(() => rmSync(base, { recursive: true, force: true }));
const posixOnly = {
  skip: process.platform === "win32" ? "pseudo-terminals through python's pty module are POSIX" : false,
  timeout: 30_000,
};
const SGR = /\u001b\[[0-9;]*m/;

function workspace(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "notes.txt"), "first note\nsecond note\n");
  return dir;
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = { ...process.env, ACPKIT_DATA_DIR: join(base, "data"), ...extra };
  if (extra.NO_COLOR === undefined) delete copy.NO_COLOR;
  delete copy.FORCE_COLOR;
  return copy;
}

test(
  "against an agent on the official SDK: @path completion, diff, plan, permission by key, model switch, " +
    "Ctrl-C cancels, :quit",
  posixOnly,
  async () => {
    const cwd = workspace("sdk");
    const pty = new PtySession([node, cli, "chat", "--", node, sdkAgent, "--serve"], {
      cwd,
      env: env(),
      columns: 100,
      rows: 40,
    });
    try {
      await pty.waitFor(/connected to SDK fixture agent.*\n.*session sdk-1 · .* · mode Ask · model small/);
      await pty.waitForPrompt();
      pty.type("summarise @no\t");
      await pty.waitFor(/summarise @notes\.txt/);
      pty.type("\r");
      await pty.waitFor(/press a key/);
      const asking = pty.screen.lines().join("\n");
      assert.match(asking, /› summarise @notes\.txt\n {2}\+ file:\/\/.*notes\.txt \(embedded\)/);
      assert.match(
        asking,
        /┌ \[edit\] Write hello\.txt ○ pending\n│ .*hello\.txt\n│ .*hello\.txt \+1 -1\n│ @@ -1,2 \+1,2 @@\n│ {2}hello\n│ -old line\n│ \+new line/,
      );
      assert.match(asking, /Plan 1\/2\n {2}\[x\] Think it over\n {2}\[>\] Write hello\.txt/);
      assert.match(asking, /\? Allow \[edit\] Write hello\.txt\?\n {2}1\/y Allow once/);
      assert.match(pty.raw, /\u001b\[31m-old line\u001b\[39m/, "removals are red");
      assert.match(pty.raw, /\u001b\[32m\+new line\u001b\[39m/, "additions are green");
      pty.type("y");
      await pty.waitFor(/context 4,200 \/ 100,000 tokens \(4\.2%\) · \$0\.0100/);
      await pty.waitForPrompt();
      const done = pty.text();
      assert.match(done, /✓ Allow once: Write hello\.txt/);
      assert.match(done, /┌ \[edit\] Write hello\.txt ✓ completed/);
      assert.match(done, /Result\n\nThe file was written; 1 attachment\(s\) seen\./);
      assert.doesNotMatch(done, /press a key|working/, "the live region is gone once the turn ended");
      assert.equal(readFileSync(join(cwd, "hello.txt"), "utf8"), "hello\nnew line\n");

      pty.type(":model large\r");
      await pty.waitFor(/Model: large/);
      await pty.waitForPrompt();
      pty.type("/sl");
      await pty.typeUntil("\t", /› \/slow/);
      pty.type("\r");
      await pty.waitFor(/tick2/);
      assert.match(pty.screen.lines().join("\n"), /Ctrl-C cancels/, "a spinner line while waiting");
      pty.type("\u0003");
      await pty.waitFor(/⊘ cancelled/);
      await pty.waitForPrompt();
      pty.type("again\r");
      await pty.waitFor(/press a key/, 8000, pty.raw.length);
      pty.type("n");
      await pty.waitFor(/The file was left alone; 0 attachment\(s\) seen\.\n\n• model: large/);
      pty.type(":quit\r");
      assert.equal(await pty.exited, 0);
    } finally {
      pty.kill();
    }
  },
);

test(
  "against the reference agent: a write allowed by key, live terminal output, sessions, Ctrl-C twice quits",
  posixOnly,
  async () => {
    const cwd = workspace("reference");
    const pty = new PtySession([node, cli, "chat", "--", node, cli, "agent"], {
      cwd,
      env: env(),
      columns: 100,
      rows: 40,
    });
    try {
      await pty.waitFor(/connected to .*reference agent/);
      await pty.waitForPrompt();
      pty.type("/wr");
      await pty.typeUntil("\t", /› \/write/);
      pty.type("out.txt one\\ntwo\r");
      await pty.waitFor(/\[edit\] Create out\.txt[\s\S]*new file \+2[\s\S]*│ \+one\n│ \+two[\s\S]*press a key/);
      pty.type("1");
      await pty.waitFor(/✓ Allow once: Create out\.txt/);
      await pty.waitForPrompt();
      assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "one\ntwo");

      pty.type("/run echo live-output-here\r");
      await pty.waitFor(/press a key/, 8000, pty.raw.length);
      pty.type("y");
      await pty.waitFor(/\[execute\] Run echo live-output-here ✓ completed\n│ live-output-here\n│ \$ exit 0/);
      await pty.waitForPrompt();

      pty.type(":sessions\r");
      await pty.waitFor(/ {2}sess_\S+/);
      await pty.waitForPrompt();
      pty.type(":mode code\r");
      await pty.waitFor(/mode: Code/);
      await pty.waitForPrompt();
      pty.type("/slow 20000\r");
      await pty.waitFor(/Working for 20000 ms/);
      pty.type("\u0003");
      await pty.waitFor(/Ctrl-C again quits/);
      pty.type("\u0003");
      const code = await pty.exited;
      assert.notEqual(code, 0, "quitting mid-turn is not a clean exit");
    } finally {
      pty.kill();
    }
  },
);

test(
  "with NO_COLOR against the demo agent: no colour codes at all, and the permission prompt still works",
  posixOnly,
  async () => {
    const cwd = workspace("demo");
    const pty = new PtySession([node, cli, "chat", "--", node, demoAgent], {
      cwd,
      env: env({ NO_COLOR: "1" }),
      columns: 80,
      rows: 30,
    });
    try {
      await pty.waitForPrompt();
      pty.type("summarise please\r");
      await pty.waitFor(/press a key/);
      pty.type("y");
      await pty.waitFor(/wrote summary\.md/);
      await pty.waitForPrompt();
      pty.type("\u0004");
      assert.equal(await pty.exited, 0);
      assert.doesNotMatch(pty.raw, SGR, "NO_COLOR: no SGR sequences");
      assert.match(readFileSync(join(cwd, "summary.md"), "utf8"), /- first note/);
      assert.match(pty.text(), /Plan 2\/2\n {2}\[x\] Read notes\.txt\n {2}\[x\] Write summary\.md/);
    } finally {
      pty.kill();
    }
  },
);
