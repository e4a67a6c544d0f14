import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { after, test } from "node:test";
import { agent, methods } from "@acpkit/sdk";
import { listenAcp } from "@acpkit/sdk/node";
import { runBridge, type BridgeOptions } from "./bridge.js";

const TOKEN = "bridge-s3cret";
const app = agent({ name: "bridge-test-agent" }).onRequest(methods.agent.initialize, () => ({
  protocolVersion: 1,
  agentCapabilities: {},
  agentInfo: { name: "bridge-test-agent", version: "1.0.0" },
}));
const listening = await listenAcp({ agent: app, token: TOKEN });
after(() => listening.close());

/** The bridge in process, its stdio in memory: the editor's side, and what it says on stderr. */
function bridge(options: Omit<BridgeOptions, "url"> & { url?: string }) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let stderr = "";
  let frames = "";
  stdout.setEncoding("utf8").on("data", (text: string) => (frames += text));
  const exited = runBridge(
    { url: listening.url, ...options },
    { stdin, stdout, stderr: { write: (text: string) => (stderr += text) } },
  );
  /** Waits until stdout holds a whole frame; returns it parsed. */
  const nextFrame = async (): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + 10_000;
    while (!frames.includes("\n")) {
      if (Date.now() > deadline) throw new Error(`no frame on stdout; stderr:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const line = frames.slice(0, frames.indexOf("\n"));
    frames = frames.slice(line.length + 1);
    return JSON.parse(line) as Record<string, unknown>;
  };
  const params = { protocolVersion: 1, clientCapabilities: {} };
  const initialize = () => stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params })}\n`);
  return { stdin, exited, nextFrame, initialize, stderr: () => stderr };
}

test("acp connect over Streamable HTTP says connected once initialize is answered, not before", async () => {
  const run = bridge({ profile: "http", token: TOKEN });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.doesNotMatch(run.stderr(), /connected to/, "nothing answered yet");
  run.initialize();
  const answer = await run.nextFrame();
  assert.equal((answer.result as { agentInfo: { name: string } }).agentInfo.name, "bridge-test-agent");
  assert.match(run.stderr(), /(^|\n)acp connect: connected to http:\/\/\S+ \(Streamable HTTP\)\n$/);
  run.stdin.end();
  assert.equal(await run.exited, 0);
});

test(
  "acp connect over Streamable HTTP with a wrong token: initialize refused, said on stderr with what to " + "do",
  async () => {
    const run = bridge({ profile: "http", token: "wrong" });
    run.initialize();
    const answer = await run.nextFrame();
    assert.match((answer.error as { message: string }).message, /HTTP 401/, "the editor gets the refusal");
    assert.match(
      run.stderr(),
      /acp connect: no connection to http:\/\/\S+ \(Streamable HTTP\): initialize failed: .*HTTP 401.*Pass --token or set ACP_TOKEN/,
    );
    assert.doesNotMatch(run.stderr(), /connected to/);
    run.stdin.end();
    await run.exited;
  },
);

test("acp connect over WebSocket says connected once the remote answered; a refused upgrade is not", async () => {
  const run = bridge({ profile: "websocket", token: TOKEN });
  run.initialize();
  await run.nextFrame();
  assert.match(run.stderr(), /^acp connect: connected to ws:\/\/\S+ \(WebSocket\)\n$/);
  run.stdin.end();
  assert.equal(await run.exited, 0);

  const refused = bridge({ profile: "websocket", token: "wrong" });
  assert.equal(await refused.exited, 1);
  assert.match(refused.stderr(), /HTTP 401.*Pass --token or set ACP_TOKEN/);
  assert.doesNotMatch(refused.stderr(), /connected to/);
});
