/**
 * Fault 6 of issue 8: by default acpkit reports on stderr (never stdout) what the official SDK reports on
 * `console.error`: a throwing notification handler, a response to an unknown request id, a line that is not JSON.
 * Debug and info stay quiet, stdout carries only protocol frames, and `logger: silentLogger` silences it all.
 * A real agent process over real pipes.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const agentPath = fileURLToPath(new URL("../fixtures/dropin-logger-agent.js", import.meta.url));

/** Runs the agent, feeds it `lines`, waits for the answer to the last request (id 1), ends its stdin. */
async function run(extraArgs: string[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const child = spawn(process.execPath, [agentPath, "--run", ...extraArgs], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const answered = new Promise<void>((resolve) => {
    child.stdout.on("data", () => {
      if (/"id":1,"result"/.test(stdout)) resolve();
    });
  });
  child.stdin.write("this is not JSON, an agent's log line\n");
  child.stdin.write('{"jsonrpc":"2.0","id":12345,"result":{}}\n');
  child.stdin.write('{"jsonrpc":"2.0","method":"_test/throw","params":{}}\n');
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n');
  await answered;
  child.stdin.end();
  const [code] = (await once(child, "exit")) as [number | null];
  return { stdout, stderr, code };
}

test("by default, warnings and errors go to stderr and stdout carries only protocol frames", async () => {
  const { stdout, stderr, code } = await run([]);
  assert.equal(code, 0);
  for (const line of stdout.trim().split("\n"))
    assert.doesNotThrow(() => JSON.parse(line), `stdout line is a frame: ${line}`);
  assert.match(stderr, /acpkit warn: .*not JSON/, stderr);
  assert.match(stderr, /acpkit warn: .*unknown request id[\s\S]*12345/, stderr);
  assert.match(
    stderr,
    /acpkit error: a notification handler failed[\s\S]*_test\/throw[\s\S]*the notification handler broke/,
    stderr,
  );
  assert.doesNotMatch(stderr, /acpkit (debug|info):/);
});

test("logger: silentLogger silences it", async () => {
  const { stdout, stderr, code } = await run(["--silent"]);
  assert.equal(code, 0);
  assert.match(stdout, /"id":1,"result"/);
  assert.equal(stderr, "");
});
