/**
 * `acp connect` notices a WebSocket server that goes silent after answering: a real `acp serve` stopped with SIGSTOP
 * (its connections stay open, the kernel still acknowledges every packet) answers no ping, and the bridge exits 1
 * saying so, instead of holding the editor until TCP gives up. A server that is idle but alive answers the pings
 * and is kept.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { after, test } from "node:test";
import { track } from "../interop/support/spawn.js";
import { ACP_MAIN, startServe, type ServeProcess } from "./support/serve-process.js";

const STEP = { timeout: 90_000 };
const INITIALIZE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
})}\n`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const servers: ServeProcess[] = [];
after(async () => {
  for (const serve of servers) {
    if (serve.child.pid !== undefined) process.kill(serve.child.pid, "SIGCONT");
    await serve.stop();
  }
});

/** `acp connect` over WebSocket with a 1 s ping, its initialize answered. */
async function connected(serve: ServeProcess) {
  const child = spawn(
    process.execPath,
    [ACP_MAIN, "connect", serve.url, "--profile", "websocket", "--ping-interval", "1"],
    { env: { ...process.env, ACP_TOKEN: serve.token! }, stdio: ["pipe", "pipe", "pipe"] },
  );
  track(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = once(child, "close").then(([code]) => ({ code: code as number | null, at: Date.now() }));
  child.stdin.write(INITIALIZE);
  const deadline = Date.now() + 60_000;
  while (!stdout.includes("\n") && Date.now() < deadline) await sleep(50);
  assert.match(stdout, /"id":1,"result"/, `initialize answered; stderr: ${stderr}`);
  return { child, exited, stderr: () => stderr };
}

test("a server stopped (SIGSTOP) after answering: acp connect exits 1 within two pings, saying why", STEP, async () => {
  const serve = await startServe([]);
  servers.push(serve);
  const bridge = await connected(serve);
  const stoppedAt = Date.now();
  process.kill(serve.child.pid!, "SIGSTOP");
  const { code, at } = await Promise.race([
    bridge.exited,
    sleep(20_000).then(() => ({ code: undefined, at: Date.now() })),
  ]);
  process.kill(serve.child.pid!, "SIGCONT");
  assert.equal(code, 1, `acp connect still waiting ${at - stoppedAt} ms after the server stopped: ${bridge.stderr()}`);
  assert.ok(at - stoppedAt < 10_000, `took ${at - stoppedAt} ms`);
  assert.match(bridge.stderr(), /answered neither a WebSocket ping nor anything else for \d+ s: it stopped/);
});

test("a server idle but alive answers the pings: the bridge is kept, and stdin's end still exits 0", STEP, async () => {
  const serve = await startServe([]);
  servers.push(serve);
  const bridge = await connected(serve);
  const early = await Promise.race([bridge.exited, sleep(4_000).then(() => undefined)]);
  assert.equal(early, undefined, `the bridge ended while the server was idle: ${bridge.stderr()}`);
  bridge.child.stdin.end();
  const { code } = await bridge.exited;
  assert.equal(code, 0, bridge.stderr());
});
