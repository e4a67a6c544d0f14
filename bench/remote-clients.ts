/**
 * Remote client throughput: acpkit's Streamable HTTP and WebSocket clients against the official SDK 2.4.0's, each
 * driving a 1.x `ClientSideConnection` (acpkit's, or sdk-v1's for the official transports) against the same server
 * process: the official `AcpServer` (Node adapter, `ws`) hosting a minimal acpkit agent that answers a prompt "N"
 * with N `agent_message_chunk` updates. Workload (a) of the issue at a configurable size.
 *
 *   npm run build && node dist/bench/remote-clients.js [N=50000] [REPS=3]
 *
 * A measurement, not a test: it prints updates per second (median of REPS) per client and profile.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as officialHttp from "@agentclientprotocol/sdk/experimental/http-client";
import * as officialWs from "@agentclientprotocol/sdk/experimental/ws-client";
import * as v1 from "sdk-v1";
import { WebSocket } from "ws";
import * as acpkit from "../src/index.js";

const count = Number(process.argv[2] ?? 50_000);
const reps = Number(process.argv[3] ?? 3);
const fixture = fileURLToPath(new URL("../test/e2e/fixtures/remote-server.js", import.meta.url));

const server = spawn(process.execPath, [fixture, "--serve", "--agent", "fast"], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise<number>((resolve) => {
  server.stdout!.setEncoding("utf8").on("data", (text: string) => {
    for (const line of text.split("\n")) if (line.includes("listening")) resolve((JSON.parse(line) as { listening: { port: number } }).listening.port);
  });
});
const url = `http://127.0.0.1:${port}/acp`;

type Conn = { initialize(p: unknown): Promise<unknown>; newSession(p: unknown): Promise<{ sessionId: string }>; prompt(p: unknown): Promise<unknown> };

async function run(impl: "acpkit" | "official", profile: "websocket" | "http"): Promise<number> {
  let updates = 0;
  const client = { sessionUpdate: async () => void updates++, requestPermission: async () => ({ outcome: { outcome: "cancelled" as const } }) };
  const wsUrl = url.replace("http", "ws");
  const stream =
    impl === "acpkit"
      ? profile === "websocket"
        ? acpkit.createWebSocketStream(wsUrl, { WebSocket: WebSocket as never })
        : acpkit.createHttpStream(url)
      : profile === "websocket"
        ? officialWs.createWebSocketStream(wsUrl, { WebSocket: WebSocket as never })
        : officialHttp.createHttpStream(url);
  const connection = (impl === "acpkit" ? new acpkit.ClientSideConnection(() => client, stream as acpkit.Stream) : new v1.ClientSideConnection(() => client, stream as v1.Stream)) as unknown as Conn;
  await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.newSession({ cwd: "/", mcpServers: [] });
  const text = (n: number) => ({ sessionId, prompt: [{ type: "text", text: String(n) }] });
  await connection.prompt(text(Math.min(5000, count)));
  const rates: number[] = [];
  const cpuShare: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    updates = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await connection.prompt(text(count));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    cpuShare.push((used.user + used.system) / 1e6 / seconds);
    if (updates !== count) throw new Error(`${impl} ${profile}: ${updates} updates, expected ${count}`);
    rates.push(count / seconds);
  }
  await stream.writable.close().catch(() => {});
  rates.sort((a, b) => a - b);
  cpuShare.sort((a, b) => a - b);
  clientCpu[`${impl} ${profile}`] = cpuShare[Math.floor(cpuShare.length / 2)]!;
  return rates[Math.floor(rates.length / 2)]!;
}

const results: Record<string, number> = {};
/** The client process's CPU time per wall second during the measured turns: how busy the client itself was. */
const clientCpu: Record<string, number> = {};
for (const profile of ["websocket", "http"] as const) {
  for (const impl of ["acpkit", "official"] as const) {
    const rate = await run(impl, profile);
    results[`${impl} ${profile}`] = rate;
    process.stdout.write(`${impl.padEnd(9)} ${profile.padEnd(10)} ${Math.round(rate).toLocaleString("en-US").padStart(10)} updates/s  (${count} updates, median of ${reps}; client CPU ${(clientCpu[`${impl} ${profile}`]! * 100).toFixed(0)}% of wall time, ${((clientCpu[`${impl} ${profile}`]! / rate) * 1e6).toFixed(1)} µs per update)\n`);
  }
  process.stdout.write(`  acpkit / official over ${profile}: ${(results[`acpkit ${profile}`]! / results[`official ${profile}`]!).toFixed(2)}x\n`);
}
server.kill();
