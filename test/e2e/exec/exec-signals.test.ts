import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { waitUntil } from "../../../src/node/process/process-group.js";
import { alive, fixtureAgent, startExec } from "./support.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-exec-signals-")));
after(() => rmSync(base, { recursive: true, force: true }));
const posixOnly = { skip: process.platform === "win32" ? "signals and process groups are POSIX" : false };

async function pidsFrom(file: string): Promise<{ agent: number; grandchild: number }> {
  assert.ok(
    await waitUntil(() => existsSync(file) && readFileSync(file, "utf8").endsWith("}"), 10_000),
    "the agent wrote its pids",
  );
  return JSON.parse(readFileSync(file, "utf8"));
}

test("Ctrl-C mid-turn sends session/cancel; the agent answers cancelled; exit 130", posixOnly, async () => {
  const trace = join(base, "cancel.ndjson");
  const run = startExec(["--agent", fixtureAgent(), "--cwd", base, "--trace", trace, "--format", "ndjson", "hang"]);
  await run.waitFor("working...");
  run.child.kill("SIGINT");
  const done = await run.done;
  assert.equal(done.code, 130, done.stderr);
  assert.match(done.stderr, /cancelling the turn/);
  const result = JSON.parse(done.stdout.trimEnd().split("\n").pop()!);
  assert.deepEqual([result.stopReason, result.exitCode], ["cancelled", 130]);
  const methods = readFileSync(trace, "utf8")
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line).message.method);
  assert.ok(methods.includes("session/cancel"));
});

test(
  "an agent that ignores the cancel is stopped after the grace period (exit 130, nothing left)",
  posixOnly,
  async () => {
    const pidFile = join(base, "stubborn.json");
    const run = startExec(["--agent", fixtureAgent(`--pid-file=${pidFile}`), "--cwd", base, "stubborn"]);
    await run.waitFor("working...");
    const pids = await pidsFrom(pidFile);
    const started = Date.now();
    run.child.kill("SIGINT");
    const done = await run.done;
    assert.equal(done.code, 130, done.stderr);
    assert.ok(Date.now() - started >= 1900, "waited for the grace period");
    assert.match(done.stderr, /did not end the turn within 2000 ms of the cancel; stopping it/);
    assert.ok(!alive(pids.agent));
    assert.ok(!alive(pids.grandchild), "the agent's whole process group was stopped");
  },
);

test("a second Ctrl-C stops the agent at once", posixOnly, async () => {
  const run = startExec(["--agent", fixtureAgent(), "--cwd", base, "stubborn"]);
  await run.waitFor("working...");
  const started = Date.now();
  run.child.kill("SIGINT");
  await run.waitFor("cancelling the turn", "stderr");
  run.child.kill("SIGINT");
  const done = await run.done;
  assert.equal(done.code, 130, done.stderr);
  assert.ok(Date.now() - started < 1900, "did not wait for the grace period");
  assert.match(done.stderr, /interrupted again; stopping the agent/);
});

test("exec SIGKILLed mid-turn leaves no process behind", posixOnly, async () => {
  const pidFile = join(base, "killed.json");
  const run = startExec(["--agent", fixtureAgent(`--pid-file=${pidFile}`), "--cwd", base, "stubborn"]);
  await run.waitFor("working...");
  const pids = await pidsFrom(pidFile);
  assert.ok(alive(pids.agent) && alive(pids.grandchild));
  run.child.kill("SIGKILL");
  await run.done;
  assert.ok(
    await waitUntil(() => !alive(pids.agent) && !alive(pids.grandchild), 5000),
    "the agent and its grandchild are gone",
  );
});

test(
  "SIGTERM mid-turn stops the agent and exits 143, as a shell reports a TERM (not 130, Ctrl-C's)",
  posixOnly,
  async () => {
    const run = startExec(["--agent", fixtureAgent(), "--cwd", base, "stubborn"]);
    await run.waitFor("working...");
    run.child.kill("SIGTERM");
    const done = await run.done;
    assert.equal(done.code, 143, done.stderr);
    assert.match(done.stderr, /received SIGTERM; stopping the agent/);
    assert.match(done.stderr, /stopped \(SIGTERM\)/);
  },
);
