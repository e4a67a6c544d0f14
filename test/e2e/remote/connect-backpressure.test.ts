/**
 * Backpressure through `acp connect` (the stdio <-> remote bridge), over real sockets on 127.0.0.1 (issue 9, item 6):
 * - an editor that stops reading the bridge's stdout: the bridge stops reading the remote, the remote agent is held
 *   back, and the bridge's own buffer stays small (the bridge in process with a stdout whose writes are not taken,
 *   and `acp connect` as a real process whose stdout pipe is not read, its RSS measured); once the editor reads
 *   again every update arrives, in order;
 * - a remote that does not take what the editor sends (its POSTs held, its socket not read): the bridge stops
 *   reading stdin, so the editor's own writes back up; once the remote takes again, everything goes through in order.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { PassThrough, Writable } from "node:stream";
import { after, describe, it } from "node:test";
import type { WebSocket } from "ws";
import { runBridge } from "@acpkit/cli/connect";
import { ACP } from "../exec/support.js";
import { track } from "../interop/support/spawn.js";
import { floodText, plateau, startFloodingAgent, type FloodingAgent } from "./support/flooding-agent.js";
import { answerInitialize, openSse, scriptedServer, type ScriptedServer } from "./support/scripted-server.js";

const MiB = 1024 * 1024;
const SIZE = 64 * 1024;
const COUNT = 2048; // 128 MiB offered by the agent
/** As in client-backpressure.test.ts: the server's 1 MiB, the loopback socket buffers, the bridge's small queues. */
const BOUND = 32 * MiB;
const STEP = { timeout: 180_000 };
const PROFILES = ["http", "websocket"] as const;

const agents: FloodingAgent[] = [];
const servers: ScriptedServer[] = [];
after(async () => {
  await Promise.all(agents.map((a) => a.listening.close({ graceMs: 0 })));
  await Promise.all(servers.map((s) => s.close()));
});

type Frame = {
  id?: number;
  method?: string;
  result?: { sessionId?: string; stopReason?: string };
  params?: { update?: { content?: { text?: string } } };
};

/** Splits a byte stream into parsed frames, one per line. */
function frameReader() {
  let rest = "";
  const frames: Frame[] = [];
  const waiters: Array<() => void> = [];
  return {
    frames,
    push(chunk: Buffer | string) {
      rest += chunk.toString();
      let newline;
      while ((newline = rest.indexOf("\n")) !== -1) {
        frames.push(JSON.parse(rest.slice(0, newline)) as Frame);
        rest = rest.slice(newline + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    },
    async until(test: (frame: Frame) => boolean): Promise<Frame> {
      for (;;) {
        const found = frames.find(test);
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const initialize = (id: number) =>
  line({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });

/** Checks the updates of the flood arrived whole and in order before the prompt's answer (id 3). */
function assertFloodDelivered(frames: Frame[]): void {
  let updates = 0;
  for (const frame of frames) {
    if (frame.method !== "session/update") continue;
    assert.equal(frame.params?.update?.content?.text, floodText(updates, SIZE), `update ${updates} whole and in order`);
    updates++;
  }
  assert.equal(updates, COUNT);
  assert.equal(frames.at(-1)?.id, 3, "the prompt's answer comes last");
  assert.equal(frames.at(-1)?.result?.stopReason, "end_turn");
}

describe("acp connect: an editor that stops reading stdout", () => {
  for (const [profile, reconnect] of PROFILES.flatMap(
    (p) =>
      [
        [p, false],
        [p, true],
      ] as const,
  )) {
    it(
      `${profile}${reconnect ? ", --reconnect" : ""}: the bridge in process stops reading the remote while ` +
        `its stdout is full; the agent is held back`,
      STEP,
      async () => {
        const flood = await startFloodingAgent();
        agents.push(flood);
        const reader = frameReader();
        let reading = true;
        const held: Array<() => void> = [];
        const stdin = new PassThrough();
        const stdout = new Writable({
          highWaterMark: 64 * 1024,
          write(chunk: Buffer, _encoding, done) {
            reader.push(chunk);
            if (reading) done();
            else held.push(done);
          },
        });
        const bridged = runBridge(
          { url: flood.listening.url, token: "flood-token", profile, reconnect },
          { stdin, stdout, stderr: { write: () => true } },
        );
        stdin.write(initialize(1));
        await reader.until((frame) => frame.id === 1);
        stdin.write(line({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/work", mcpServers: [] } }));
        const sessionId = (await reader.until((frame) => frame.id === 2)).result?.sessionId;
        // The editor stops reading: each write now waits.
        reading = false;
        stdin.write(
          line({
            jsonrpc: "2.0",
            id: 3,
            method: "session/prompt",
            params: { sessionId, prompt: [{ type: "text", text: `${COUNT} ${SIZE}` }] },
          }),
        );

        const agentAhead = await plateau(() => flood.progress.chars, COUNT * SIZE);
        const buffered = stdout.writableLength;
        process.stderr.write(
          `# ${profile}${reconnect ? " --reconnect" : ""}, bridge in process: agent held at ` +
            `${(agentAhead / MiB).toFixed(1)} MiB, stdout buffer ${(buffered / MiB).toFixed(2)} MiB\n`,
        );
        assert.ok(
          agentAhead < BOUND,
          `the agent got ${(agentAhead / MiB).toFixed(1)} MiB ahead of an editor reading nothing (bound ` +
            `${BOUND / MiB} MiB of ${(COUNT * SIZE) / MiB})`,
        );
        assert.ok(buffered < 8 * MiB, `the bridge holds ${(buffered / MiB).toFixed(1)} MiB for stdout`);

        reading = true;
        for (const done of held.splice(0)) done();
        await reader.until((frame) => frame.id === 3);
        assertFloodDelivered(reader.frames.filter((frame) => frame.id !== 1 && frame.id !== 2));
        stdin.end();
        assert.equal(await bridged, 0);
      },
    );
  }

  for (const profile of PROFILES) {
    it(
      `${profile}: acp connect as a process whose stdout pipe is not read holds the agent back, its RSS stays flat`,
      STEP,
      async () => {
        const flood = await startFloodingAgent();
        agents.push(flood);
        const child = spawn(
          process.execPath,
          [ACP, "connect", flood.listening.url, "--token", "flood-token", "--profile", profile],
          { stdio: ["pipe", "pipe", "pipe"] },
        );
        track(child);
        child.stderr!.resume();
        const reader = frameReader();
        child.stdout!.on("data", (chunk: Buffer) => reader.push(chunk));
        const rss = () =>
          Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) * 1024;
        child.stdin!.write(initialize(1));
        await reader.until((frame) => frame.id === 1);
        child.stdin!.write(
          line({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/work", mcpServers: [] } }),
        );
        const sessionId = (await reader.until((frame) => frame.id === 2)).result?.sessionId;
        const baseline = rss();
        // The editor stops reading acp connect's stdout.
        child.stdout!.pause();
        child.stdin!.write(
          line({
            jsonrpc: "2.0",
            id: 3,
            method: "session/prompt",
            params: { sessionId, prompt: [{ type: "text", text: `${COUNT} ${SIZE}` }] },
          }),
        );

        const agentAhead = await plateau(() => flood.progress.chars, COUNT * SIZE);
        const growth = rss() - baseline;
        process.stderr.write(
          `# ${profile}, acp connect process: agent held at ${(agentAhead / MiB).toFixed(1)} MiB, RSS growth ` +
            `${(growth / MiB).toFixed(1)} MiB\n`,
        );
        assert.ok(
          agentAhead < BOUND,
          `the agent got ${(agentAhead / MiB).toFixed(1)} MiB ahead of an editor reading nothing`,
        );
        assert.ok(growth < BOUND, `acp connect's RSS grew by ${(growth / MiB).toFixed(1)} MiB`);

        child.stdout!.resume();
        await reader.until((frame) => frame.id === 3);
        assertFloodDelivered(reader.frames.filter((frame) => frame.id !== 1 && frame.id !== 2));
        child.stdin!.end();
        const [code] = (await once(child, "exit")) as [number | null];
        assert.equal(code, 0);
      },
    );
  }
});

/** Notifications the editor sends while the remote takes nothing: 32 MiB of them. */
const NOTE_SIZE = 64 * 1024;
const NOTES = 512;
const note = (i: number) => line({ jsonrpc: "2.0", method: "_flood/note", params: { i, pad: "n".repeat(NOTE_SIZE) } });
/**
 * stdin data the bridge may take while the remote takes nothing: its 256 KiB hold mark, a read chunk, the kernel's
 * socket buffers.
 */
const STDIN_BOUND = 12 * MiB;

/** Polls `check` until it holds (the test's own timeout bounds the wait). */
async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Writes the notes to `stdin` as fast as it takes them; `offered` counts what it took. */
function feed(stdin: NodeJS.WritableStream, counter: { offered: number }): Promise<void> {
  return (async () => {
    for (let i = 0; i < NOTES; i++) {
      const text = note(i);
      counter.offered += text.length;
      if (!stdin.write(text)) await once(stdin, "drain");
    }
  })();
}

describe("acp connect: a remote that does not take what the editor sends", () => {
  for (const reconnect of [false, true]) {
    const flag = reconnect ? ", --reconnect" : "";
    it(
      `http${flag}: while the remote holds its POSTs, the bridge stops reading stdin; released, every message ` +
        `goes through in order`,
      STEP,
      async () => {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const notes: number[] = [];
        const server = await scriptedServer(async (request, res: ServerResponse) => {
          if (request.method === "POST" && request.json?.method === "initialize") {
            await released;
            return answerInitialize(request, res);
          }
          if (request.method === "GET") return void openSse(res);
          if (request.json?.method === "_flood/note") notes.push((request.json.params as { i: number }).i);
          res.writeHead(202).end();
        });
        servers.push(server);
        const stdin = new PassThrough();
        const stdout = new PassThrough();
        const reader = frameReader();
        stdout.on("data", (chunk: Buffer) => reader.push(chunk));
        const bridged = runBridge(
          { url: server.url, profile: "http", reconnect },
          { stdin, stdout, stderr: { write: () => true } },
        );
        stdin.write(initialize(1));
        const counter = { offered: 0 };
        const fed = feed(stdin, counter);
        const taken = await plateau(() => counter.offered, Number.POSITIVE_INFINITY);
        process.stderr.write(
          `# http${flag}: the bridge took ${(taken / MiB).toFixed(2)} MiB of stdin while the remote took nothing\n`,
        );
        assert.ok(
          taken < STDIN_BOUND,
          `the bridge read ${(taken / MiB).toFixed(1)} MiB of stdin while the remote took nothing`,
        );

        release();
        await reader.until((frame) => frame.id === 1);
        await fed;
        await waitFor(() => notes.length === NOTES);
        assert.deepEqual(
          notes,
          Array.from({ length: NOTES }, (_, i) => i),
          "every note, once, in order",
        );
        stdin.end();
        assert.equal(await bridged, 0);
      },
    );

    it(
      `websocket${flag}: while the remote does not read its socket, the bridge stops reading stdin; read ` +
        `again, every message goes through in order`,
      STEP,
      async () => {
        let socket: WebSocket | undefined;
        const notes: number[] = [];
        const server = await scriptedServer(
          (_request, res) => void res.writeHead(404).end(),
          (_request, _socket, _head, accept) =>
            accept((ws) => {
              socket = ws;
              ws.on("message", (data) => {
                const frame = JSON.parse(String(data)) as { id?: number; method?: string; params?: { i: number } };
                if (frame.method === "initialize")
                  ws.send(
                    JSON.stringify({
                      jsonrpc: "2.0",
                      id: frame.id,
                      result: { protocolVersion: 1, agentCapabilities: {} },
                    }),
                  );
                if (frame.method === "_flood/note") notes.push(frame.params!.i);
              });
            }),
        );
        servers.push(server);
        const stdin = new PassThrough();
        const stdout = new PassThrough();
        const reader = frameReader();
        stdout.on("data", (chunk: Buffer) => reader.push(chunk));
        const bridged = runBridge(
          { url: server.url.replace(/^http/, "ws"), profile: "websocket", reconnect },
          { stdin, stdout, stderr: { write: () => true } },
        );
        stdin.write(initialize(1));
        await reader.until((frame) => frame.id === 1);
        // The remote stops reading its socket.
        (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
        const counter = { offered: 0 };
        const fed = feed(stdin, counter);
        const taken = await plateau(() => counter.offered, Number.POSITIVE_INFINITY);
        process.stderr.write(
          `# websocket${flag}: the bridge took ${(taken / MiB).toFixed(2)} MiB of stdin while the remote read ` +
            `nothing\n`,
        );
        assert.ok(
          taken < STDIN_BOUND,
          `the bridge read ${(taken / MiB).toFixed(1)} MiB of stdin while the remote read nothing`,
        );

        (socket as unknown as { _socket: { resume(): void } })._socket.resume();
        await fed;
        await waitFor(() => notes.length === NOTES);
        assert.deepEqual(
          notes,
          Array.from({ length: NOTES }, (_, i) => i),
          "every note, once, in order",
        );
        stdin.end();
        assert.equal(await bridged, 0);
      },
    );
  }
});
