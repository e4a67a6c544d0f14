/**
 * Remote server throughput: workload (a), N `agent_message_chunk` updates in one prompt turn, from an agent hosted by
 * acpkit's server and by the official SDK 2.4.0's `AcpServer` (each in its own process), over WebSocket and over
 * Streamable HTTP, received by the same client: the official SDK's `client()` on its `createWebSocketStream` /
 * `createHttpStream` ("official client"), and a bare client that only counts frames ("raw client": what the server
 * alone can do). Medians of `REPS` runs.
 *
 *   npm run build && node dist/bench/remote-server.js [N] [REPS]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { WebSocket } from "ws";

const N = Number(process.argv[2] ?? 200_000);
const REPS = Number(process.argv[3] ?? 3);
const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } };
const newSession = { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } };
const prompt = (sessionId: string) => ({ jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: `stream ${N}` }] } });

async function startServer(impl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL("./remote-server-agent.js", import.meta.url)), impl], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const url = await new Promise<string>((resolve) => child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    const match = /^url: (\S+)/m.exec(out);
    if (match) resolve(match[1]!);
  }));
  return { child, url };
}

/** Raw WebSocket: counts text frames until the prompt's answer. */
async function rawWebSocket(url: string): Promise<number> {
  const socket = new WebSocket(url.replace(/^http/, "ws"));
  await new Promise((resolve) => socket.once("open", resolve));
  let sessionId = "";
  let updates = 0;
  let started = 0;
  const done = new Promise<number>((resolve) => {
    socket.on("message", (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('{"jsonrpc":"2.0","method":"session/update"')) return void updates++;
      const message = JSON.parse(text);
      if (message.id === 0) socket.send(JSON.stringify(newSession));
      else if (message.id === 1) {
        sessionId = message.result.sessionId;
        started = performance.now();
        socket.send(JSON.stringify(prompt(sessionId)));
      } else if (message.id === 2) resolve(performance.now() - started);
    });
  });
  socket.send(JSON.stringify(init));
  const ms = await done;
  socket.close();
  if (updates !== N) throw new Error(`raw ws: ${updates} updates, expected ${N}`);
  return ms;
}

/** Raw Streamable HTTP: POSTs with fetch, counts SSE events on the session stream until the prompt's answer. */
async function rawHttp(url: string): Promise<number> {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const answer = await post(init);
  const connectionId = answer.headers.get("acp-connection-id")!;
  await answer.text();
  const sse = (headers: Record<string, string>, onText: (text: string) => void) =>
    new Promise<() => void>((resolve) => {
      const req = request(url, { headers: { accept: "text/event-stream", "acp-connection-id": connectionId, ...headers }, agent: false }, (response) => {
        response.setEncoding("utf8");
        response.on("data", onText);
        resolve(() => req.destroy());
      });
      req.end();
    });
  let connectionText = "";
  let gotSession!: (id: string) => void;
  const session = new Promise<string>((resolve) => (gotSession = resolve));
  const closeConnection = await sse({}, (text) => {
    connectionText += text;
    const match = /"sessionId":"([^"]+)"/.exec(connectionText);
    if (match) gotSession(match[1]!);
  });
  await (await post(newSession, { "acp-connection-id": connectionId })).text();
  const sessionId = await session;
  let updates = 0;
  let tail = "";
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const closeSession = await sse({ "acp-session-id": sessionId }, (text) => {
    const joined = tail + text;
    let index = joined.indexOf("session/update");
    while (index !== -1) {
      updates++;
      index = joined.indexOf("session/update", index + 1);
    }
    if (joined.includes('"id":2,"result"')) finished();
    tail = joined.slice(-40);
    if (tail.includes("session/update")) updates -= (tail.match(/session\/update/g) ?? []).length;
  });
  const started = performance.now();
  await (await post(prompt(sessionId), { "acp-connection-id": connectionId, "acp-session-id": sessionId })).text();
  await done;
  const ms = performance.now() - started;
  closeSession();
  closeConnection();
  await fetch(url, { method: "DELETE", headers: { "acp-connection-id": connectionId } });
  if (Math.abs(updates - N) > 1) throw new Error(`raw http: ${updates} updates, expected ${N}`);
  return ms;
}

/** The official SDK's client app on its own remote stream. */
async function officialClient(url: string, profile: "ws" | "http"): Promise<number> {
  const stream = profile === "ws" ? createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket: WebSocket as never }) : createHttpStream(url);
  let updates = 0;
  const connection = acp.client({ name: "bench" }).onNotification(acp.methods.client.session.update, () => void updates++).connect(stream);
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, { cwd: "/", mcpServers: [] });
  const started = performance.now();
  await connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: `stream ${N}` }] });
  const ms = performance.now() - started;
  connection.close();
  if (updates !== N) throw new Error(`official client: ${updates} updates, expected ${N}`);
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU time (user + system) a process has used, in ms (Linux /proc; 0 elsewhere). */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

const rows: Array<[string, string, (url: string) => Promise<number>]> = [
  ["WebSocket", "raw client", rawWebSocket],
  ["Streamable HTTP", "raw client", rawHttp],
  ["WebSocket", "official client", (url) => officialClient(url, "ws")],
  ["Streamable HTTP", "official client", (url) => officialClient(url, "http")],
];
const results: Record<string, Record<string, { rate: number; cpuUs: number }>> = {};
for (const impl of ["official", "acpkit"]) {
  const { child, url } = await startServer(impl);
  for (const [profile, client, run] of rows) {
    await run(url).catch(() => 0); // warm-up
    const times: number[] = [];
    const cpu: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const before = cpuMs(child.pid!);
      times.push(await run(url));
      cpu.push(cpuMs(child.pid!) - before);
    }
    const rate = N / (median(times) / 1000);
    const cpuUs = (median(cpu) * 1000) / N;
    (results[`${profile}, ${client}`] ??= {})[impl] = { rate, cpuUs };
    process.stdout.write(`${impl} server, ${profile}, ${client}: ${Math.round(rate)} msg/s, server CPU ${cpuUs.toFixed(1)} us/msg\n`);
  }
  child.kill();
}
process.stdout.write(`\n| ${N} updates, one turn | official AcpServer: msg/s, server CPU/msg | acpkit server: msg/s, server CPU/msg | rate ratio | CPU ratio |\n| --- | --- | --- | --- | --- |\n`);
for (const [row, { official, acpkit }] of Object.entries(results) as Array<[string, Record<string, { rate: number; cpuUs: number }>]>) {
  process.stdout.write(
    `| ${row} | ${Math.round(official!.rate / 1000)}k, ${official!.cpuUs.toFixed(1)} us | ${Math.round(acpkit!.rate / 1000)}k, ${acpkit!.cpuUs.toFixed(1)} us | ` +
      `${(acpkit!.rate / official!.rate).toFixed(1)}x | ${(official!.cpuUs / acpkit!.cpuUs).toFixed(1)}x less |\n`,
  );
}
