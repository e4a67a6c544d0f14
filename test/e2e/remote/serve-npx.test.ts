/**
 * `npx acp serve`, the form the docs suggest, stopped by SIGTERM as a supervisor stops it: the signal reaches npm,
 * which passes it to its `sh -c` shell, which dies without passing it on. The server, reparented, notices that its
 * parent is gone and stops as it does on SIGTERM (turns cancelled, agents stopped, the port closed, exit), instead of
 * listening on as an orphan (issue 14). Real npm, real processes.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { after, test } from "node:test";
import { repoRoot } from "../../../src/protocol/testing/repo.js";
import { fixtureAgentCommand } from "./support/serve-process.js";

/** Marks every process this test starts (npm passes the environment down), to find an orphan if the test fails. */
const MARK = `ACPKIT_NPX_SERVE_TEST=${randomUUID()}`;

/** The pids of the live processes carrying MARK in their environment (Linux: /proc). */
function marked(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(MARK)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

after(() => {
  for (const pid of marked()) process.kill(pid, "SIGKILL");
});

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });

test(
  "npx acp serve stops on SIGTERM to npx: it notices it was orphaned, stops as on SIGTERM, and closes its port",
  { timeout: 120_000, skip: process.platform === "linux" ? false : "orphans are found through /proc" },
  async () => {
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const [name, value] = MARK.split("=") as [string, string];
    const npx = spawn("npx", ["--no-install", "acp", "serve", "--port", "0", "--agent", fixtureAgentCommand()], {
      cwd: repoRoot,
      env: { ...env, [name]: value },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    npx.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    npx.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    // Both pipes close once every process holding them (npm, its shell, the server) has exited.
    const closed = Promise.all([
      new Promise((resolve) => npx.stdout.once("close", resolve)),
      new Promise((resolve) => npx.stderr.once("close", resolve)),
    ]);
    const started = Date.now();
    while (!/^url: http:\/\/127\.0\.0\.1:(\d+)\/acp$/m.test(stdout)) {
      assert.ok(Date.now() - started < 60_000, `acp serve printed no URL:\n${stdout}\n${stderr}`);
      assert.equal(npx.exitCode, null, `npx exited:\n${stdout}\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const port = Number(/^url: http:\/\/127\.0\.0\.1:(\d+)\/acp$/m.exec(stdout)![1]);
    assert.equal(await refused(port), false, "the server listens");
    assert.ok(marked().length >= 2, "npm and the server carry the mark");

    npx.kill("SIGTERM");
    await closed;
    assert.match(
      stderr,
      /acp serve: its parent process \(pid \d+\) is gone \(npm's shell does not pass SIGTERM on\): stopping/,
    );
    assert.match(stderr, /acp serve: stopped\n/);
    assert.equal(await refused(port), true, "the port is closed");
    assert.deepEqual(marked(), [], "nothing is left running");
  },
);
