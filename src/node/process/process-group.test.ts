import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import {
  isGroupAlive,
  isProcessAlive,
  signalGroup,
  terminateGroup,
  trackedGroups,
  trackGroup,
  untrackGroup,
  waitUntil,
} from "./process-group.js";

const posixOnly = { skip: process.platform === "win32" ? "process groups are POSIX" : false };
const launcher = new URL("./agent-launcher.js", import.meta.url).href;

test(
  "terminateGroup: SIGTERM first, SIGKILL after the grace, for the leader and what it started",
  posixOnly,
  async () => {
    const script =
      "process.on('SIGTERM', () => {}); require('node:child_process').spawn('sleep', ['30'], { stdio: " +
      "'ignore' }); console.log('ready'); setInterval(() => {}, 1000)";
    const child = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    await new Promise((resolve) => child.stdout!.once("data", resolve));
    trackGroup(child.pid!);
    assert.ok(isGroupAlive(child.pid!) && signalGroup(child.pid!, 0));
    const started = Date.now();
    assert.deepEqual(await terminateGroup(child, 200), { code: null, signal: "SIGKILL" });
    assert.ok(Date.now() - started >= 200);
    assert.ok(!isGroupAlive(child.pid!) && !signalGroup(child.pid!, 0));
    assert.ok(!trackedGroups().includes(child.pid!));
    untrackGroup(child.pid!); // idempotent
  },
);

test("a polite group stops at SIGTERM without waiting for the grace", posixOnly, async () => {
  const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  const started = Date.now();
  assert.deepEqual(await terminateGroup(child, 5000), { code: null, signal: "SIGTERM" });
  assert.ok(Date.now() - started < 2000);
  assert.ok(!isProcessAlive(child.pid!));
});

test("waitUntil polls until done or the deadline", async () => {
  let n = 0;
  assert.equal(await waitUntil(() => ++n === 3, 1000), true);
  assert.equal(await waitUntil(() => false, 30), false);
});

/** Runs a parent that launches an agent, prints its pid and exits `how`; returns the agent's pid. */
async function orphanAfter(how: string, env: NodeJS.ProcessEnv): Promise<number> {
  const script = `
    const { launchAgent } = await import(${JSON.stringify(launcher)});
    const agent = await launchAgent({ argv: [process.execPath, "-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"] });
    process.stdout.write(String(agent.pid) + "\\n", () => { ${how} });`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, ...env },
  });
  return Number(stdout.trim());
}

test("agents are killed when their parent exits normally (the exit hook)", posixOnly, async () => {
  const pid = await orphanAfter("process.exit(0)", { ACPKIT_NO_WATCHDOG: "1" });
  assert.ok(await waitUntil(() => !isProcessAlive(pid), 2000), `agent ${pid} outlived its parent`);
});

test("agents are killed when their parent is SIGKILLed (the watchdog)", posixOnly, async () => {
  const pid = await orphanAfter("process.kill(process.pid, 'SIGKILL')", {}).catch((error: { stdout?: string }) =>
    Number(error.stdout?.trim()),
  );
  assert.ok(pid > 0);
  assert.ok(await waitUntil(() => !isProcessAlive(pid), 3000), `agent ${pid} outlived its parent`);
});
