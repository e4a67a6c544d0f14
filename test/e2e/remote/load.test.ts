/**
 * 100 concurrent connections each streaming (half over Streamable HTTP, half over WebSocket, official clients), plus
 * 20 WebSocket clients that never read while their agents try to send 100 MB each, against a server in its own
 * process: every reading client gets every chunk, and the server's memory stays bounded (its RSS is sampled and
 * reported; the non-readers alone would need 2 GB if the server buffered for them).
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, it } from "node:test";
import { WebSocket } from "ws";
import { fixturePath, track } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { officialHttp, officialWebSocket, type RemoteTarget } from "./support/client-transports.js";
import { remoteClient } from "./support/remote-client.js";

const READERS = 100;
const NON_READERS = 20;
const CHUNKS = 1000;
const CHUNK_SIZE = 1000;
const MAX_BUFFERED_BYTES = 256 * 1024;

/** The resident set size of `pid` in MiB (Linux), or undefined where /proc is not there. */
function rssMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

let server: ReturnType<typeof spawn>;
let target: RemoteTarget;
let work: string;

before(async () => {
  work = makeTempDir("acp-remote-load-");
  server = spawn(
    process.execPath,
    [fixturePath("remote-load-server"), "--serve", "--max-buffered-bytes", String(MAX_BUFFERED_BYTES)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  track(server);
  let out = "";
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (/^token: /m.test(out)) resolve();
    });
    server.once("exit", (code) => reject(new Error(`the load server exited (${code}) before listening`)));
  });
  target = {
    url: /^url: (\S+)/m.exec(out)![1]!,
    webSocketUrl: /^websocket: (\S+)/m.exec(out)![1]!,
    token: /^token: (\S+)/m.exec(out)![1]!,
  };
});

after(async () => {
  if (server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
  removeTempDir(work);
});

/** A WebSocket client that initializes, starts a huge turn, then never reads again. */
async function nonReader(): Promise<WebSocket> {
  const socket = new WebSocket(target.webSocketUrl, ["acp"], { headers: { authorization: `Bearer ${target.token}` } });
  const next = () => new Promise<any>((resolve) => socket.once("message", (data) => resolve(JSON.parse(String(data)))));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  socket.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  );
  await next();
  socket.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } }));
  const sessionId = (await next()).result.sessionId;
  socket.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: `stream 100000 ${CHUNK_SIZE}` }] },
    }),
  );
  await next();
  socket.pause();
  return socket;
}

it(
  `${READERS} connections stream ${CHUNKS} chunks each while ${NON_READERS} never read: all delivered, server ` +
    `memory bounded`,
  { timeout: 300_000 },
  async (t) => {
    const pid = server.pid!;
    const baseline = rssMiB(pid);
    let peak = baseline ?? 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid) ?? 0)), 100);
    try {
      const stuck = await Promise.all(Array.from({ length: NON_READERS }, () => nonReader()));
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: READERS }, async (_, index) => {
          const transport = index % 2 === 0 ? officialHttp : officialWebSocket;
          const client = await remoteClient(transport.open(target), work, transport.impl);
          await client.initialize();
          const sessionId = await client.newSession(work);
          const turn = await client.prompt(sessionId, `stream ${CHUNKS} ${CHUNK_SIZE}`);
          const received = client.host.texts(0, sessionId).length;
          client.close();
          await client.closed;
          return { stopReason: turn.stopReason, received };
        }),
      );
      const seconds = (Date.now() - started) / 1000;
      const during = rssMiB(pid);
      for (const socket of stuck) socket.terminate();
      for (const result of results) assert.deepEqual(result, { stopReason: "end_turn", received: CHUNKS });
      const messages = READERS * CHUNKS;
      t.diagnostic(
        `${messages} updates to ${READERS} clients in ${seconds.toFixed(1)} s ` +
          `(${Math.round(messages / seconds)} msg/s); ` +
          (`server RSS: ${baseline?.toFixed(0)} MiB at start, peak ${peak.toFixed(0)} MiB, ` +
            `${during?.toFixed(0)} MiB at the end `) +
          `(${NON_READERS} non-readers asked for ${Math.round((NON_READERS * 100_000 * CHUNK_SIZE) / 2 ** 20)} MiB)`,
      );
      if (baseline !== undefined)
        assert.ok(peak - baseline < 512, `server RSS grew by ${(peak - baseline).toFixed(0)} MiB`);
    } finally {
      clearInterval(sampler);
    }
  },
);
