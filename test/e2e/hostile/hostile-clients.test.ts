/**
 * The hostile-peer suite, client side: a scripted client (`ScriptPeer` over the child's pipes) does the bad things of
 * issues 9 and 10 to the reference agent (`acp agent`, built on acpkit's agent toolkit) in a real process. Each
 * asserts the documented outcome: an error with the right code and id, the agent still serving, no crash, no hang.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { scriptPeerOver } from "../../../src/entries/node.js";
import type { ScriptPeer, WireEvent } from "../../../src/wire/index.js";
import { ACP_CLI } from "../support/programs.js";

const CLI = ACP_CLI;
const dataDir = mkdtempSync(join(tmpdir(), "acpkit-hostile-clients-"));
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const WAIT = { timeoutMs: 60_000 };

function startAgent(): { child: ChildProcess; peer: ScriptPeer } {
  const child = spawn(process.execPath, [CLI, "agent", "--data-dir", dataDir], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, ACP_MODEL_URL: "", ACP_MODEL: "", ACP_MODEL_KEY: "" },
  });
  children.push(child);
  const peer = scriptPeerOver(child.stdout!, child.stdin!, { side: "client" });
  return { child, peer };
}

const errorOf = (event: WireEvent) =>
  (event.value as { error?: { code: number; message: string; data?: unknown } } | undefined)?.error;
const idOf = (event: WireEvent) => (event.value as { id?: unknown } | undefined)?.id;

async function initialize(peer: ScriptPeer): Promise<void> {
  const answer = await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, WAIT).response;
  assert.equal(errorOf(answer), undefined, "initialize answered");
}

describe("hostile clients against the reference agent", () => {
  it("garbage before and between requests: -32700/-32600 answers, and every real request is still served", async () => {
    const { peer } = startAgent();
    peer.sendRaw("not json at all\n");
    peer.sendRaw('{"jsonrpc":"2.0","id":\n');
    peer.sendRaw("\u0000\u00ff\ufffd\n");
    peer.sendRaw('{"jsonrpc":"1.0","id":77,"method":"initialize"}\n');
    peer.sendRaw("[]\n");
    await initialize(peer);
    const parseErrors = peer.received().filter((e) => errorOf(e)?.code === -32700);
    // A line that looks like JSON but is not gets -32700; other noise is logged and skipped (the tolerant reader).
    assert.ok(parseErrors.length >= 1, `parse errors answered: ${parseErrors.length}`);
    const invalid = await peer.waitFor((e) => e.from === "agent" && idOf(e) === 77, {
      what: "the answer to the invalid envelope",
      since: 0,
      ...WAIT,
    });
    assert.equal(errorOf(invalid)?.code, -32600);
    const session = await peer.request("session/new", { cwd: dataDir, mcpServers: [] }, WAIT).response;
    assert.ok((session.result as { sessionId?: string }).sessionId);
  });

  it("responses to ids never used and a reused id: ignored or each answered, never a crash", async () => {
    const { child, peer } = startAgent();
    await initialize(peer);
    peer.sendRaw('{"jsonrpc":"2.0","id":424242,"result":{}}\n');
    peer.sendRaw('{"jsonrpc":"2.0","id":"ghost","error":{"code":1,"message":"x"}}\n');
    const a = peer.request("session/new", { cwd: dataDir, mcpServers: [] }, { id: 9, ...WAIT });
    const b = peer.request("session/new", { cwd: dataDir, mcpServers: [] }, { id: 9, ...WAIT });
    await a.response;
    await peer.waitFor((e) => e.type === "response" && e.id === 9, {
      what: "a second answer to id 9",
      since: a.event.index + 2,
      ...WAIT,
    });
    void b;
    assert.equal(child.exitCode, null, "the agent is still running");
  });

  it(
    "an oversized request with its id after the body is answered " + "with an error for that id; the agent serves on",
    async () => {
      const { peer } = startAgent();
      await initialize(peer);
      const pad = "p".repeat(80 * 1024 * 1024);
      peer.sendRaw(
        `{"jsonrpc":"2.0","method":"session/new","params":{"cwd":"/","mcpServers":[],"_meta":{"pad":"${pad}"}},"id":31337}\n`,
      );
      const answer = await peer.waitFor((e) => e.type === "response" && e.id === 31337, {
        what: "the answer to the oversized request",
        since: 0,
        ...WAIT,
      });
      assert.ok(errorOf(answer), "an error answer");
      assert.match(errorOf(answer)!.message, /too large|limit/i);
      const session = await peer.request("session/new", { cwd: dataDir, mcpServers: [] }, WAIT).response;
      assert.ok((session.result as { sessionId?: string }).sessionId);
    },
  );

  it("a request dripped one byte per write is answered", async () => {
    const { child, peer } = startAgent();
    const text =
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n';
    for (const char of text) {
      if (!child.stdin!.write(char)) await once(child.stdin!, "drain");
      await new Promise((resolve) => setImmediate(resolve));
    }
    const answer = await peer.waitFor((e) => e.type === "response" && e.id === 1, {
      what: "initialize",
      since: 0,
      ...WAIT,
    });
    assert.equal(errorOf(answer), undefined);
  });

  it("a flood of 5,000 requests is answered exactly once each", async () => {
    const { peer } = startAgent();
    await initialize(peer);
    let text = "";
    for (let i = 0; i < 5_000; i++)
      text += `{"jsonrpc":"2.0","id":${100_000 + i},"method":"_acpkit/nothing","params":{}}\n`;
    peer.sendRaw(text);
    await peer.waitFor((e) => e.type === "response" && e.id === 104_999, {
      what: "the last answer",
      since: 0,
      ...WAIT,
    });
    const answered = new Map<unknown, number>();
    for (const e of peer.received())
      if (e.type === "response" && typeof e.id === "number" && e.id >= 100_000)
        answered.set(e.id, (answered.get(e.id) ?? 0) + 1);
    assert.equal(answered.size, 5_000);
    assert.ok(
      [...answered.values()].every((n) => n === 1),
      "one answer each",
    );
  });

  it("a client dying in the middle of a frame: the agent exits cleanly on the end of its input", async () => {
    const { child } = startAgent();
    child.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"initia');
    child.stdin!.end();
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
  });
});
