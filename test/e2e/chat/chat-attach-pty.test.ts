/**
 * `acp chat --attach ID URL` in a real pseudo-terminal (pty_driver.py) against a live session of a real `acp serve`
 * (the reference agent behind it) that `acp exec` drives: the chat shows the session's history (the other client's
 * prompt, with who sent it), then the rest of that client's turn as it happens, and then takes its own turn as a
 * controller. What the shared-sessions guide says was tried in tmux, checked on every run.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ACP_MAIN, startServe, type ServeProcess } from "../remote/support/serve-process.js";
import { PtySession } from "./pty-session.js";

const TOKEN = "chat-attach-pty-token";
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-chat-attach-")));
let serve: ServeProcess;

before(async () => {
  serve = await startServe(["--token", TOKEN, "--cwd", base], { ACPKIT_DATA_DIR: join(base, "data") });
});
after(async () => {
  await serve?.stop();
  rmSync(base, { recursive: true, force: true });
});

/** The live sessions `acp serve` lists (GET <path>/sessions). */
async function liveSessions(): Promise<{ sessionId: string; turnRunning: boolean }[]> {
  const response = await fetch(`${serve.url.replace(/\/$/, "")}/sessions`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(response.status, 200);
  return ((await response.json()) as { sessions: { sessionId: string; turnRunning: boolean }[] }).sessions;
}

test(
  "acp chat --attach shows another client's turn live, then prompts as a controller",
  {
    skip: process.platform === "win32" ? "pseudo-terminals through python's pty module are POSIX" : false,
    timeout: 90_000,
  },
  async () => {
    // The other client: a turn that says it is working, waits, then says it is done.
    const exec = spawn(process.execPath, [ACP_MAIN, "exec", "--agent", serve.url, "--token", TOKEN, "/slow 12000"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let execOut = "";
    exec.stdout!.setEncoding("utf8").on("data", (chunk: string) => void (execOut += chunk));
    exec.stderr!.resume();
    const execDone = new Promise<number | null>((resolve) => exec.once("close", resolve));
    let pty: PtySession | undefined;
    try {
      let sessionId: string | undefined;
      for (let i = 0; i < 300 && sessionId === undefined; i++) {
        sessionId = (await liveSessions()).find((session) => session.turnRunning)?.sessionId;
        if (sessionId === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(sessionId, "acp exec's session is listed with its turn running");

      pty = new PtySession([process.execPath, ACP_MAIN, "chat", "--attach", sessionId, serve.url, "--token", TOKEN], {
        cwd: base,
        env: { ...process.env, ACPKIT_DATA_DIR: join(base, "data") },
      });
      // The history: the other client's prompt, with who sent it, and what its turn said so far.
      await pty.waitFor(/\(acp-exec\) \/slow 12000/, 30_000);
      await pty.waitFor(/Working for 12000 ms/, 30_000);
      assert.doesNotMatch(pty.text(), /Done after 12000 ms/, "the turn is still running when the chat shows it");
      // The rest of that turn, live.
      await pty.waitFor(/Done after 12000 ms\./, 30_000);
      assert.equal(await execDone, 0, "acp exec's turn ended normally");
      assert.match(execOut, /Done after 12000 ms\./);

      // Its own turn, as a controller of the same session.
      await pty.waitForPrompt(15_000);
      pty.type("/stream 3 attached\r");
      await pty.waitFor(/attached 3/, 30_000);
      const screen = pty.text();
      assert.ok(
        screen.indexOf("Done after 12000 ms.") < screen.indexOf("attached 3"),
        "the chat's own turn follows the other client's",
      );
      // What a person sees: the prompt alone on its line under the other client's turn and its own, nothing glued to
      // it (the prompt was drawn again under output that arrived while it showed).
      const lines = pty.screen.history();
      assert.ok(
        lines.every((line) => !/^› .*› /.test(line)),
        `no prompt with another line glued to it:\n${lines.join("\n")}`,
      );
      // At the prompt (the turn over: a Ctrl-C during it cancels it, and then one more at the prompt quits).
      await pty.waitForPrompt(10_000);
      pty.type("\x03");
      await pty.waitFor(/Ctrl-C again, Ctrl-D/, 10_000);
      // Typed once the prompt is back: a key typed between two prompt lines reaches neither.
      await pty.waitForPrompt(10_000);
      pty.type("\x03");
      const code = await Promise.race([
        pty.exited,
        new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 15_000)),
      ]);
      assert.notEqual(code, "still running", "two Ctrl-C quit the chat");
    } finally {
      pty?.kill();
      if (exec.exitCode === null) exec.kill("SIGKILL");
    }
  },
);
