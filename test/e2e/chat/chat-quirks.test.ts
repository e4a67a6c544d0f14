/**
 * `acp chat` (piped, no terminal) against an agent with real agents' quirks (test/e2e/fixtures/quirk-agent.ts):
 * session/new never answered is bounded; a turn whose cancel is ignored ends here and the agent is stopped and
 * started again without the user asking (as `acp exec` stops it); `end_turn` after a cancel is called out.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ANY_CONTROL } from "../../../src/client/toolkit/hostile-text.js";
import { processAlive } from "../interop/support/spawn.js";
import { ACP_CLI } from "../support/programs.js";

const cli = ACP_CLI;
const quirkAgent = fileURLToPath(new URL("../fixtures/quirk-agent.js", import.meta.url));
const cwd = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-chat-quirks-")));
after(() => rmSync(cwd, { recursive: true, force: true }));

/** A piped `acp chat` with the quirk agent; `until(text)` waits for output. */
function chat(...agentFlags: string[]): {
  child: ChildProcessWithoutNullStreams;
  out: () => string;
  until: (text: string | RegExp) => Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(
    process.execPath,
    [
      cli,
      "chat",
      "--verbose",
      "--startup-timeout",
      "4000",
      "--",
      process.execPath,
      quirkAgent,
      "--quirk-agent",
      ...agentFlags,
    ],
    { cwd, env: { ...process.env, NO_COLOR: "1" }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let out = "";
  const waiters: Array<() => void> = [];
  const onData = (text: string) => {
    out += text;
    waiters.slice().forEach((wake) => wake());
  };
  child.stdout.setEncoding("utf8").on("data", onData);
  child.stderr.setEncoding("utf8").on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const until = (text: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${String(text)} in:\n${out}`)), 30_000);
      const check = () => {
        if (typeof text === "string" ? out.includes(text) : text.test(out)) {
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          resolve();
        }
      };
      waiters.push(check);
      check();
    });
  return { child, out: () => out, until, exited };
}

test("session/new never answered: the chat says so (quoting the agent) instead of waiting forever", async () => {
  const run = chat("--new-never");
  await run.until(
    /could not start a session: the agent did not answer session\/new within 4000 ms; it printed:\n {2}\| quirk: session\/new is never answered/,
  );
  run.child.stdin.end();
  assert.equal(await run.exited, 0);
});

test(
  "a cancel the agent ignores: the turn ends here after the deadline, the agent is stopped and started again by " +
    "itself, the chat goes on",
  async () => {
    const pidFile = join(cwd, "ignored-cancel.pid");
    const run = chat(`--pid-file=${pidFile}`);
    await run.until("session q");
    const first = Number(readFileSync(pidFile, "utf8"));
    assert.ok(processAlive(first));
    run.child.stdin.write("never\n");
    await run.until("agent| quirk: this turn never ends");
    run.child.kill("SIGINT");
    await run.until(
      /warning: the agent did not end the turn within 5000 ms of the cancel \(the protocol says it MUST answer "cancelled"\); the turn was ended here\./,
    );
    await run.until(
      "the agent did not stop after the cancel: stopping it and starting it again (continuing the session when it can)",
    );
    // Nobody types :restart.
    await run.until("restarted quirk-agent; session q");
    const second = Number(readFileSync(pidFile, "utf8"));
    assert.notEqual(second, first, "a new agent process");
    assert.equal(processAlive(first), false, "the agent that ignored the cancel is gone");
    run.child.stdin.write("hello again\n");
    await run.until("echo: hello again");
    assert.ok(run.out().indexOf("restarted quirk-agent") < run.out().indexOf("echo: hello again"));
    run.child.stdin.end();
    assert.equal(await run.exited, 0);
    assert.equal(processAlive(second), false, "the restarted agent ends with the chat");
  },
);

test("end_turn answered to a cancel: shown as cancelled, with a warning naming the agent's mistake", async () => {
  const run = chat();
  await run.until("session q");
  run.child.stdin.write("end-turn-after-cancel\n");
  await run.until("agent| quirk: waiting for a cancel");
  run.child.kill("SIGINT");
  await run.until('warning: the agent answered "end_turn" to a cancelled turn');
  run.child.stdin.end();
  assert.equal(await run.exited, 0);
});

test(
  "terminal escape injection: every display path of the chat " + "shows agent text without control sequences",
  async () => {
    const run = chat("--hostile");
    await run.until("Type a message");
    run.child.stdin.write("escapes\n");
    await run.until("? Allow");
    run.child.stdin.write("1\n");
    await run.until("message<");
    for (const command of [":mode", ":config", ":model", ":auth", "fail-escapes"])
      run.child.stdin.write(`${command}\n`);
    run.child.stdin.end();
    assert.equal(await run.exited, 0);
    const out = run.out();
    assert.ok(!ANY_CONTROL.test(out), `a control character reached the terminal: ${JSON.stringify(out)}`);
    const labels = [
      "agent-title",
      "session",
      "mode-name",
      "option-name",
      "value-name",
      "value-description",
      "auth-name",
      "auth-description",
      "stderr",
      "thought",
      "plan",
      "tool-title-2",
      "tool-content",
      "old",
      "new",
      "asks",
      "option",
      "message",
      "error",
    ];
    for (const label of labels) assert.ok(out.includes(`${label}<`), `${label} shown in:\n${out}`);
  },
);
