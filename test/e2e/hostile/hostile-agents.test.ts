/**
 * The hostile-peer suite, agent side: scripted agents (`hostile-agent.ts`, a `ScriptPeer` in a real child process)
 * do the bad things of issues 9 and 10 to acpkit's client library (`launchAgent` + `ClientSideConnection` + the
 * file-system host). Each asserts the documented outcome: a clear error, no hang, no crash, nothing left behind.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  ClientSideConnection,
  ConnectionClosedError,
  MessageTooLargeError,
  type SessionNotification,
} from "../../../src/entries/index.js";
import { FileSystemHost, launchAgent, type LaunchedAgent } from "../../../src/entries/node.js";

const fromSource = import.meta.url.endsWith(".ts");
const script = fileURLToPath(new URL(`./hostile-agent.${fromSource ? "ts" : "js"}`, import.meta.url));
const root = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-hostile-")));
const launched: LaunchedAgent[] = [];
after(async () => {
  await Promise.all(launched.map((agent) => agent.stop()));
  rmSync(root, { recursive: true, force: true });
});

/** Fails instead of hanging: most bugs under test are waits without end. */
function within<T>(promise: Promise<T>, what: string, ms = 60_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const bound = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no outcome within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

async function connect(mode: string, maxMessageBytes?: number) {
  const agent = await launchAgent({
    argv: [process.execPath, ...(fromSource ? ["--import", "tsx"] : []), script, "--mode", mode],
    stdinGraceMs: 100,
    stopGraceMs: 2_000,
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
  });
  launched.push(agent);
  const updates: SessionNotification[] = [];
  const fs = new FileSystemHost({ roots: (sessionId) => (sessionId === "s1" ? [root] : undefined) });
  const connection = new ClientSideConnection(
    () => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
      sessionUpdate: (params: SessionNotification) => void updates.push(params),
      readTextFile: (params) => fs.readTextFile(params),
      writeTextFile: (params) => fs.writeTextFile(params),
    }),
    agent.stream,
  );
  await within(
    connection.initialize({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    }),
    "initialize",
  );
  const { sessionId } = await within(connection.newSession({ cwd: root, mcpServers: [] }), "session/new");
  const prompt = (meta?: Record<string, unknown>) =>
    connection.prompt({ sessionId, prompt: [{ type: "text", text: "go" }], ...(meta ? { _meta: meta } : {}) });
  const texts = () => updates.map((n) => (n.update as { content?: { text?: string } }).content?.text ?? "");
  return { agent, connection, prompt, texts, updates };
}

describe("hostile agents against the client library", () => {
  it(
    "garbage lines (not JSON, half frames, binary, batches, wrong version) are skipped; the turn completes and " +
      "the next one too",
    async () => {
      const { prompt, texts } = await connect("garbage");
      assert.equal((await within(prompt(), "prompt after garbage")).stopReason, "end_turn");
      assert.equal((await within(prompt(), "second prompt")).stopReason, "end_turn");
      assert.deepEqual(texts(), ["still here", "still here"]);
    },
  );

  it(
    "responses to unknown ids, a duplicated answer and a reused " + "id: the prompt resolves once, nothing crashes",
    async () => {
      const { prompt } = await connect("ids");
      assert.equal((await within(prompt(), "prompt")).stopReason, "end_turn");
      // The connection still works: the duplicate did not resolve this later request.
      assert.equal((await within(prompt(), "second prompt")).stopReason, "end_turn");
    },
  );

  it(
    "an answer over the size limit, its id after the body: the " + "waiting prompt is told (MessageTooLargeError)",
    async () => {
      const { prompt } = await connect("huge", 1024 * 1024);
      await assert.rejects(
        within(prompt(), "prompt"),
        (error: unknown) => error instanceof MessageTooLargeError && /limit/i.test(error.message),
      );
    },
  );

  it(
    "a prompt never answered: stopping the agent rejects it with " + "a local error saying the connection closed",
    async () => {
      const { agent, prompt, texts } = await connect("never");
      const turn = prompt();
      const outcome = turn.then(
        () => undefined,
        (error: unknown) => error,
      );
      await within(
        (async () => {
          while (texts().length === 0) await new Promise((resolve) => setImmediate(resolve));
        })(),
        "the agent's first update",
      );
      await within(agent.stop(), "stop");
      const error = await within(outcome, "prompt after stop");
      assert.ok(error instanceof ConnectionClosedError, `the prompt settled with ${String(error)}`);
      assert.match(error.message, /ACP connection closed/);
    },
  );

  it("a flood of 20,000 updates: every one arrives, in order, before the answer resolves", async () => {
    const { prompt, texts } = await connect("flood");
    assert.equal((await within(prompt(), "prompt")).stopReason, "end_turn");
    const got = texts();
    assert.equal(got.length, 20_000);
    for (let i = 0; i < got.length; i++) assert.equal(got[i], `${i},`);
  });

  it("frames dripped one byte at a time are read whole", async () => {
    const { prompt, texts } = await connect("drip");
    assert.equal((await within(prompt(), "prompt")).stopReason, "end_turn");
    assert.deepEqual(texts(), ["drip"]);
  });

  it(
    "an agent dying in the middle of a frame: the prompt rejects " + "(closed), the half frame is not delivered",
    async () => {
      const { prompt } = await connect("die-mid-frame");
      await assert.rejects(
        within(prompt(), "prompt"),
        (error: unknown) => error instanceof ConnectionClosedError && /agent process/.test(error.message),
      );
    },
  );

  it("fs requests outside the roots, relative or with NUL bytes are refused with -32602 and a reason", async () => {
    const { prompt, texts } = await connect("outside-roots");
    assert.equal((await within(prompt(), "prompt")).stopReason, "end_turn");
    const refusals = JSON.parse(texts()[0]!) as Array<{ code?: number; data?: { reason?: string }; served?: string }>;
    assert.equal(refusals.length, 4);
    for (const refusal of refusals) {
      assert.equal(refusal.served, undefined, `served ${refusal.served}`);
      assert.equal(refusal.code, -32602);
      assert.ok(refusal.data?.reason, "a reason is given");
    }
  });

  it(
    "a grandchild that detaches into its own session and holds " + "the output pipe: stop() ends it, nothing left",
    async () => {
      const marker = `acpkit-hostile-${process.pid}-${Date.now()}`;
      const { agent, prompt } = await connect("escape");
      assert.equal((await within(prompt({ marker }), "prompt")).stopReason, "end_turn");
      await within(agent.stop(), "stop with an escaped grandchild");
      const left = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
        .split("\n")
        .filter((line) => line.includes(marker));
      assert.deepEqual(left, [], "processes left behind");
    },
  );
});
