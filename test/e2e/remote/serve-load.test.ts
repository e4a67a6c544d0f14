/**
 * `acp serve` under load: 100 concurrent acpkit clients (half WebSocket, half Streamable HTTP), each streaming a turn
 * through a real `acp serve` hosting the reference agent: every chunk delivered, the RSS of the server and of its
 * agent processes sampled, reported and bounded, and every agent process stopped once its client closed.
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ClientSideConnection } from "../../../src/entries/index.js";
import { connectRemote } from "../../../src/entries/node.js";
import { within } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { ClientHost } from "./support/client.js";
import { hostClient } from "./support/connect-process.js";
import { descendants, rssMiB } from "./support/process-tree.js";
import { startServe, type ServeProcess } from "./support/serve-process.js";

const TOKEN = "serve-load-token";
const dirs: string[] = [];
const serves: ServeProcess[] = [];
after(async () => {
  for (const serve of serves) await serve.stop("SIGKILL");
  for (const dir of dirs) removeTempDir(dir);
});
const temp = (prefix: string) => {
  const dir = makeTempDir(prefix);
  dirs.push(dir);
  return dir;
};
/** `acp serve` with the reference agent persisting under `data`. */
async function serve(data: string, extra: string[]): Promise<ServeProcess> {
  const started = await startServe(["--token", TOKEN, "--verbose", ...extra], { ACPKIT_DATA_DIR: data });
  serves.push(started);
  return started;
}

describe("100 concurrent acpkit clients streaming through acp serve", () => {
  const CLIENTS = 100;
  const CHUNKS = 1000;
  it(
    `${CLIENTS} clients (half WebSocket, half Streamable HTTP) get all ${CHUNKS} chunks each; server and ` +
      `agent memory bounded`,
    { timeout: 600_000 },
    async (t) => {
      const work = temp("acp-serve-load-");
      // All clients come from 127.0.0.1, like users behind one proxy, with the default admission: with no other
      // address there, the cap per address does not hold (docs/safety.md), so no socket the busy test process opened
      // and had not written to yet is closed.
      const server = await serve(temp("acp-serve-data-"), ["--max-connections", String(CLIENTS + 10)]);
      const pid = server.child.pid!;
      const baseline = rssMiB(pid);
      let serverPeak = baseline;
      let agentsPeak = 0;
      let agentPeak = 0;
      let agentCount = 0;
      const sample = () => {
        serverPeak = Math.max(serverPeak, rssMiB(pid));
        const agents = descendants(pid).map(rssMiB);
        agentCount = Math.max(agentCount, agents.length);
        agentsPeak = Math.max(
          agentsPeak,
          agents.reduce((sum, rss) => sum + rss, 0),
        );
        agentPeak = Math.max(agentPeak, ...agents, 0);
      };
      const sampler = setInterval(sample, 250);
      try {
        const started = Date.now();
        const results = await Promise.all(
          Array.from({ length: CLIENTS }, async (_, index) => {
            const host = new ClientHost(work);
            const connection = new ClientSideConnection(
              () => hostClient(host),
              await connectRemote(server.url, {
                profile: index % 2 === 0 ? "websocket" : "http",
                token: TOKEN,
                openTimeoutMs: 120_000,
              }),
            );
            await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
            const { sessionId } = await connection.newSession({ cwd: work, mcpServers: [] });
            const { stopReason } = await connection.prompt({
              sessionId,
              prompt: [{ type: "text", text: `/stream ${CHUNKS}` }],
            });
            const received = host.texts(0, sessionId).length;
            connection.close();
            host.dispose();
            return { stopReason, received };
          }),
        );
        const seconds = (Date.now() - started) / 1000;
        for (const result of results) assert.deepEqual(result, { stopReason: "end_turn", received: CHUNKS });
        t.diagnostic(
          `${CLIENTS * CHUNKS} updates to ${CLIENTS} acpkit clients in ${seconds.toFixed(1)} s; acp serve RSS ` +
            `${baseline.toFixed(0)} MiB at start, peak ${serverPeak.toFixed(0)} MiB; ` +
            (`${agentCount} agent processes, peak ${agentsPeak.toFixed(0)} MiB together, ` +
              `${agentPeak.toFixed(0)} MiB the largest`),
        );
        assert.ok(serverPeak - baseline < 512, `acp serve's RSS grew by ${(serverPeak - baseline).toFixed(0)} MiB`);
        assert.ok(agentPeak < 400, `an agent process reached ${agentPeak.toFixed(0)} MiB`);
      } finally {
        clearInterval(sampler);
      }
      await within(
        (async () => {
          while (descendants(pid).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        })(),
        60_000,
        "every agent process to be stopped after its client closed",
      );
    },
  );
});
