/**
 * Processes that leave the process group (`setsid`, a double fork, `nohup`, a grandchild holding the output pipe)
 * must not outlive `terminal/release`, `terminal/kill`, the agent's stop, or the client's exit. Checked by pid.
 * Run twice where cgroup v2 is writable: once with cgroups, once with the environment tag alone
 * (ACPKIT_NO_CGROUP=1 in a child process).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { launchAgent } from "./agent-launcher.js";
import { isProcessAlive, waitUntil } from "./process-group.js";
import { cgroupBase } from "./cgroup.js";
import { OWNER_ID, setCgroupContainment } from "./process-tree.js";
import { TerminalHost } from "../terminal/terminal-host.js";

const linuxOnly = { skip: process.platform !== "linux" ? "escape containment is checked by /proc on Linux" : false };
const base = mkdtempSync(join(tmpdir(), "acpkit-escape-"));
after(() => rmSync(base, { recursive: true, force: true }));
let files = 0;

/** Shell lines that each start a `sleep 1000` escaping the group another way, appending its pid to $PIDS. */
const ESCAPES = [
  'setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $! >> "$PIDS"',
  '(setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $! >> "$PIDS") &',
  "(sh -c 'setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $! >> \"$PIDS\"' &) &",
  'nohup setsid sleep 1000 >/dev/null 2>&1 </dev/null & echo $! >> "$PIDS"',
  'setsid sleep 1000 & echo $! >> "$PIDS"', // holds our stdout and stderr pipes
];
const SCRIPT =
  `${ESCAPES.join("\n")}\nwhile [ "$(wc -l < "$PIDS")" -lt ${ESCAPES.length} ]; do sleep 0.01; done\necho ` + `started`;

function pidFile(): string {
  return join(base, `pids-${++files}`);
}

async function escapedPids(file: string): Promise<number[]> {
  assert.ok(await waitUntil(() => readPids(file).length === ESCAPES.length, 10_000), "the escapees started");
  const pids = readPids(file);
  for (const pid of pids) assert.ok(isProcessAlive(pid), `escapee ${pid} is running before the stop`);
  return pids;
}

function readPids(file: string): number[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function assertAllGone(pids: number[], when: string): Promise<void> {
  const gone = await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), 5000);
  assert.ok(gone, `${when}: still alive: ${pids.filter(isProcessAlive).join(", ")}`);
}

const sessionId = "s1";
const terminalHost = () => new TerminalHost({ roots: () => [base], killGraceMs: 500 });

for (const [label, cgroups] of [
  ["", true],
  [" (environment tag only, no cgroup)", false],
] as const) {
  test(`terminal/release ends every escapee of a command that already exited${label}`, linuxOnly, async () => {
    setCgroupContainment(cgroups);
    const host = terminalHost();
    const PIDS = pidFile();
    const { terminalId } = await host.createTerminal({
      sessionId,
      command: "sh",
      args: ["-c", SCRIPT],
      env: [{ name: "PIDS", value: PIDS }],
    });
    const pids = await escapedPids(PIDS);
    assert.deepEqual(await host.waitForTerminalExit({ sessionId, terminalId }), { exitCode: 0, signal: null });
    await host.releaseTerminal({ sessionId, terminalId });
    await assertAllGone(pids, "after terminal/release");
  });

  test(
    `terminal/kill ends the command and every escapee; the output stops at the command's exit${label}`,
    linuxOnly,
    async () => {
      setCgroupContainment(cgroups);
      const host = terminalHost();
      const PIDS = pidFile();
      const script = `${SCRIPT}\nexec sleep 1000`;
      const { terminalId } = await host.createTerminal({
        sessionId,
        command: "sh",
        args: ["-c", script],
        env: [{ name: "PIDS", value: PIDS }],
      });
      const pids = await escapedPids(PIDS);
      await host.killTerminal({ sessionId, terminalId });
      await assertAllGone(pids, "after terminal/kill");
      assert.ok((await host.waitForTerminalExit({ sessionId, terminalId })).signal !== null);
      await host.releaseTerminal({ sessionId, terminalId });
    },
  );

  test(`the agent's stop ends every escapee, including one holding the agent's stdout${label}`, linuxOnly, async () => {
    setCgroupContainment(cgroups);
    const PIDS = pidFile();
    const agent = await launchAgent({
      argv: ["sh", "-c", `${SCRIPT}\nexec sleep 1000`],
      extraEnv: { PIDS },
      stdinGraceMs: 50,
      stopGraceMs: 500,
    });
    const pids = await escapedPids(PIDS);
    await agent.stop();
    await assertAllGone(pids, "after the agent's stop");
  });

  test(
    `an agent that exits while an escapee holds its stdout ends the connection (no wait on a pipe not ours)${label}`,
    linuxOnly,
    async () => {
      setCgroupContainment(cgroups);
      const PIDS = pidFile();
      const agent = await launchAgent({
        argv: ["sh", "-c", `${SCRIPT}\nexit 3`],
        extraEnv: { PIDS },
        stdinGraceMs: 50,
        stopGraceMs: 500,
      });
      const pids = await escapedPids(PIDS);
      const ended = await new Promise<unknown>((resolve) => {
        agent.stream.readable
          .getReader()
          .read()
          .then(
            () => resolve("end"),
            (error: unknown) => resolve(error),
          );
      });
      assert.ok(ended !== undefined, "the stream ended");
      await agent.stop();
      await assertAllGone(pids, "after the agent's stop");
    },
  );
}

test(
  "with cgroups, even an escapee that clears its environment ends with the terminal",
  { skip: linuxOnly.skip || (cgroupBase(OWNER_ID) === undefined ? "no writable cgroup v2 here" : false) },
  async () => {
    setCgroupContainment(true);
    const host = terminalHost();
    const PIDS = pidFile();
    const script = 'setsid env -i sleep 1000 >/dev/null 2>&1 </dev/null & echo $! >> "$PIDS"\nexec sleep 1000';
    const { terminalId } = await host.createTerminal({
      sessionId,
      command: "sh",
      args: ["-c", script],
      env: [{ name: "PIDS", value: PIDS }],
    });
    assert.ok(await waitUntil(() => readPids(PIDS).length === 1, 10_000));
    const pids = readPids(PIDS);
    await host.releaseTerminal({ sessionId, terminalId });
    await assertAllGone(pids, "after terminal/release");
  },
);

const launcher = new URL("../terminal/terminal-host.js", import.meta.url).href;
const agentLauncher = new URL("./agent-launcher.js", import.meta.url).href;

/**
 * Runs a client process that starts a terminal (or an agent) whose command leaves escapees, prints "ready" and then
 * exits `how`. Returns the escapees' pids, then the terminal's or agent's own pid.
 */
async function clientThatExits(
  how: string,
  env: NodeJS.ProcessEnv,
  what: "terminal" | "agent" = "terminal",
): Promise<number[]> {
  const PIDS = pidFile();
  const OWN = `${PIDS}-own`;
  const command = JSON.stringify(`echo $$ > "$PIDS-own"\n${SCRIPT}\nexec sleep 1000`);
  const start =
    what === "terminal"
      ? `const { TerminalHost } = await import(${JSON.stringify(launcher)});
    const host = new TerminalHost({ roots: () => [${JSON.stringify(base)}] });
    await host.createTerminal({ sessionId: "s", command: "sh", args: ["-c", ${command}], env: [{ name: "PIDS", value: ${JSON.stringify(PIDS)} }] });`
      : `const { launchAgent } = await import(${JSON.stringify(agentLauncher)});
    await launchAgent({ argv: ["sh", "-c", ${command}], extraEnv: { PIDS: ${JSON.stringify(PIDS)} } });`;
  const script = `
    ${start}
    const { readFileSync } = await import("node:fs");
    const wait = () => { try { if (readFileSync(${JSON.stringify(PIDS)}, "utf8").split("\\n").filter(Boolean).length >= ${ESCAPES.length}) return true; } catch {} return false; };
    while (!wait()) await new Promise((r) => setTimeout(r, 10));
    process.stdout.write("ready\\n", () => { ${how} });`;
  await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, ...env },
  }).catch(() => undefined);
  return [...readPids(PIDS), ...readPids(OWN)];
}

for (const [label, env] of [
  ["", {}],
  [" (environment tag only, no cgroup)", { ACPKIT_NO_CGROUP: "1" }],
] as const) {
  for (const what of ["terminal", "agent"] as const) {
    test(
      `the client's normal exit ends every escapee of its ${what}s, and the ${what} itself${label}`,
      linuxOnly,
      async () => {
        const pids = await clientThatExits("process.exit(0)", { ...env, ACPKIT_NO_WATCHDOG: "1" }, what);
        assert.equal(pids.length, ESCAPES.length + 1);
        await assertAllGone(pids, "after the client exited");
      },
    );

    test(
      `the client's death by SIGKILL ends every escapee of its ${what}s, and the ${what} itself (the watchdog)${label}`,
      linuxOnly,
      async () => {
        const pids = await clientThatExits("process.kill(process.pid, 'SIGKILL')", env, what);
        assert.equal(pids.length, ESCAPES.length + 1);
        await assertAllGone(pids, "after the client was SIGKILLed");
      },
    );
  }
}
