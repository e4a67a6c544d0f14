/**
 * `acp exec --permissions` governs the client's own hosts, not only the agent's permission requests; the hosts
 * serve only the session exec set up; an agent that leaves an escaped process holding a terminal's pipes does not
 * make exec hang or leave the process behind.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isProcessAlive, waitUntil } from "../../../src/node/process/process-group.js";
import { runExec } from "./support.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-exec-hosts-")));
after(() => rmSync(base, { recursive: true, force: true }));
const PROBE = fileURLToPath(new URL("../fixtures/host-probe-agent.js", import.meta.url));
const probe = `'${process.execPath}' '${PROBE}' --host-probe`;
let n = 0;

async function probeWith(policy: string, prompt = "go", env: NodeJS.ProcessEnv = {}) {
  const cwd = realpathSync(mkdtempSync(join(base, `ws-${++n}-`)));
  writeFileSync(join(cwd, "notes.txt"), "notes\n");
  const run = await runExec(["--agent", probe, "--cwd", cwd, "--permissions", policy, prompt], { env });
  assert.equal(run.code, 0, run.stderr);
  return { cwd, results: JSON.parse(run.stdout.trim()) as Record<string, string>, stderr: run.stderr };
}

test("--permissions deny-all: the client itself serves no reads, no writes and no terminals", async () => {
  const { cwd, results } = await probeWith("deny-all");
  assert.deepEqual(results, {
    read: "-32602 denied",
    write: "-32602 denied",
    terminal: "-32602 denied",
    otherSession: "-32002",
  });
  assert.ok(!existsSync(join(cwd, "out.txt")) && !existsSync(join(cwd, "ran.txt")));
});

test("--permissions allow-reads: reads only", async () => {
  const { cwd, results } = await probeWith("allow-reads");
  assert.deepEqual(results, { read: "ok", write: "-32602 denied", terminal: "-32602 denied", otherSession: "-32002" });
  assert.ok(!existsSync(join(cwd, "out.txt")) && !existsSync(join(cwd, "ran.txt")));
});

test("--permissions allow-all: everything inside the session, nothing for another session", async () => {
  const { cwd, results } = await probeWith("allow-all");
  assert.deepEqual(results, { read: "ok", write: "ok", terminal: "ok", otherSession: "-32002" });
  assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "written\n");
  assert.equal(readFileSync(join(cwd, "ran.txt"), "utf8"), "ran\n");
});

test("rules: a permission the agent obtained covers the host write it names, and nothing else", async () => {
  const rulesFile = join(base, "rules.json");
  writeFileSync(
    rulesFile,
    JSON.stringify({ rules: [{ kind: "edit", title: "Write out.txt", decision: "allow" }], otherwise: "deny-all" }),
  );
  const { cwd, results } = await probeWith(`rules:${rulesFile}`, "ask first");
  assert.deepEqual(results, { read: "-32602 denied", write: "ok", terminal: "-32602 denied", otherSession: "-32002" });
  assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "written\n");
});

test(
  "an escaped process holding a terminal's pipes neither hangs exec nor outlives it",
  { skip: process.platform !== "linux" ? "checked through /proc" : false },
  async () => {
    const PIDS = join(base, "escaped-pids");
    const { results } = await probeWith("allow-all", "escape", { PIDS });
    assert.equal(results.terminal, "ok");
    const pids = readFileSync(PIDS, "utf8").split("\n").filter(Boolean).map(Number);
    assert.equal(pids.length, 1);
    assert.ok(
      await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), 5000),
      `still alive: ${pids.filter(isProcessAlive).join(", ")}`,
    );
  },
);

test(
  "an agent that dies mid-turn leaving a daemon on its stdout: exec ends at once with the agent's exit code, " +
    "the daemon is killed",
  { skip: process.platform !== "linux" ? "checked through /proc" : false },
  async () => {
    const PIDS = join(base, "crash-pids");
    const cwd = realpathSync(mkdtempSync(join(base, "crash-")));
    const run = await runExec(["--agent", probe, "--cwd", cwd, "--permissions", "allow-all", "crash"], {
      env: { PIDS },
    });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /exited with code 9/);
    const pids = readFileSync(PIDS, "utf8").split("\n").filter(Boolean).map(Number);
    assert.equal(pids.length, 1);
    assert.ok(
      await waitUntil(() => pids.every((pid) => !isProcessAlive(pid)), 5000),
      `still alive: ${pids.filter(isProcessAlive).join(", ")}`,
    );
  },
);
