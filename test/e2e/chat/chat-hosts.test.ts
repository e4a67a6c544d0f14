/**
 * `acp chat --permissions` governs the chat's own file system and terminal hosts, not only the agent's permission
 * requests: a hostile agent (host-probe-agent) that reads, writes and runs a command WITHOUT asking gets -32602
 * `denied` where the policy says so, and nothing is written or run. Headless (stdin a pipe), as chat-pipe.test.ts.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ACP_CLI } from "../support/programs.js";

const cli = ACP_CLI;
const probe = fileURLToPath(new URL("../fixtures/host-probe-agent.js", import.meta.url));
const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-chat-hosts-")));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/** Runs `acp chat --permissions POLICY` on the probe agent with one prompt; returns what each attempt got. */
async function chatProbe(policy: string): Promise<{ cwd: string; results: Record<string, string> }> {
  const cwd = realpathSync(mkdtempSync(join(base, `ws-${++n}-`)));
  writeFileSync(join(cwd, "notes.txt"), "notes\n");
  const child = spawn(
    process.execPath,
    [cli, "chat", "--cwd", cwd, "--permissions", policy, "--", process.execPath, probe, "--host-probe"],
    {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  child.stdin.end("go\n");
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (err += text));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  assert.equal(code, 0, `${out}\n${err}`);
  // The chat wraps long lines at a space: the report may span two lines.
  const report = /\{"read":[^}]*\}/.exec(out);
  assert.ok(report, `the probe's report in the chat's output:\n${out}`);
  return { cwd, results: JSON.parse(report[0].replace(/\n/g, " ")) as Record<string, string> };
}

test(
  "acp chat --permissions deny-all: the chat itself serves no reads, no writes and no terminals",
  { timeout: 60_000 },
  async () => {
    const { cwd, results } = await chatProbe("deny-all");
    assert.deepEqual(results, {
      read: "-32602 denied",
      write: "-32602 denied",
      terminal: "-32602 denied",
      otherSession: "-32002",
    });
    assert.ok(!existsSync(join(cwd, "out.txt")), "nothing written");
    assert.ok(!existsSync(join(cwd, "ran.txt")), "nothing run");
  },
);

test("acp chat --permissions allow-reads: reads only", { timeout: 60_000 }, async () => {
  const { cwd, results } = await chatProbe("allow-reads");
  assert.deepEqual(results, { read: "ok", write: "-32602 denied", terminal: "-32602 denied", otherSession: "-32002" });
  assert.ok(!existsSync(join(cwd, "out.txt")) && !existsSync(join(cwd, "ran.txt")));
});

test(
  "acp chat --permissions allow-all: the same agent is served (the refusals above are the policy's)",
  { timeout: 60_000 },
  async () => {
    const { cwd, results } = await chatProbe("allow-all");
    assert.deepEqual(results, { read: "ok", write: "ok", terminal: "ok", otherSession: "-32002" });
    assert.equal(readFileSync(join(cwd, "out.txt"), "utf8"), "written\n");
    assert.equal(readFileSync(join(cwd, "ran.txt"), "utf8"), "ran\n");
  },
);
