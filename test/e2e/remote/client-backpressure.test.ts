/**
 * Backpressure on the remote client links (issue 9, item 6): a remote agent flooding a client that stops reading
 * (its `readable` is not read) is held back by the client link, over real sockets on 127.0.0.1, for Streamable HTTP
 * (`createHttpStream`: the SSE streams are no longer read) and WebSocket (`createWebSocketStream` with `ws`: the
 * socket is paused). 128 MiB is offered; the agent gets no further than the server's 1 MiB buffer, the kernel's
 * socket buffers and the client's bounded queues allow. Then the client reads again and gets every update, in order.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { WebSocket } from "ws";
import type { Stream } from "../../../src/jsonrpc/link.js";
import { createHttpStream } from "../../../src/entries/experimental/http-client.js";
import { createWebSocketStream } from "../../../src/entries/experimental/ws-client.js";
import { floodText, plateau, startFloodingAgent, type FloodingAgent } from "./support/flooding-agent.js";

const MiB = 1024 * 1024;
const SIZE = 64 * 1024;
const COUNT = 2048; // 128 MiB offered
/**
 * What may sit between an agent and a client that reads nothing: the server's 1 MiB, the loopback socket buffers
 * (tcp_rmem/tcp_wmem autotuning can reach tens of MiB) and the client's queues (64 messages in the readable, the
 * link's and the HTTP body's high-water marks). Without backpressure the whole 128 MiB gets through.
 */
const BOUND = 32 * MiB;

const agents: FloodingAgent[] = [];
after(() => Promise.all(agents.map((a) => a.listening.close({ graceMs: 0 }))));

const auth = { Authorization: "Bearer flood-token" };
const transports: Array<[string, (agent: FloodingAgent) => Stream]> = [
  ["Streamable HTTP (createHttpStream)", (a) => createHttpStream(a.listening.url, { headers: auth })],
  [
    "WebSocket (createWebSocketStream with ws)",
    (a) => createWebSocketStream(a.listening.webSocketUrl, { WebSocket: WebSocket as never, headers: auth }),
  ],
];

describe("a remote agent flooding a client that stops reading", () => {
  for (const [name, open] of transports) {
    it(
      `${name}: the client link stops reading, the agent is held back, and every update arrives once the ` +
        `client reads again`,
      { timeout: 120_000 },
      async () => {
        const flood = await startFloodingAgent();
        agents.push(flood);
        const stream = open(flood);
        const writer = stream.writable.getWriter();
        const reader = stream.readable.getReader();
        const next = async () => {
          const { value, done } = await reader.read();
          assert.equal(done, false, "the stream ended early");
          return value as {
            id?: number;
            result?: { sessionId?: string };
            method?: string;
            params?: { update?: { content?: { text?: string } } };
          };
        };
        await writer.write({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: 1, clientCapabilities: {} },
        });
        assert.equal((await next()).id, 1);
        await writer.write({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/work", mcpServers: [] } });
        const sessionId = (await next()).result?.sessionId;
        assert.ok(sessionId);
        await writer.write({
          jsonrpc: "2.0",
          id: 3,
          method: "session/prompt",
          params: { sessionId, prompt: [{ type: "text", text: `${COUNT} ${SIZE}` }] },
        });

        // The client reads nothing now.
        const held = await plateau(() => flood.progress.chars, COUNT * SIZE);
        assert.ok(
          held < BOUND,
          `the agent got ${(held / MiB).toFixed(1)} MiB ahead of a client reading nothing (bound ` +
            `${BOUND / MiB} MiB of ${(COUNT * SIZE) / MiB} offered)`,
        );

        // Reading again: every update, in order, then the answer.
        let updates = 0;
        for (;;) {
          const message = await next();
          if (message.id === 3) break;
          assert.equal(message.method, "session/update");
          assert.equal(
            message.params?.update?.content?.text,
            floodText(updates, SIZE),
            `update ${updates} in order and whole`,
          );
          updates++;
        }
        assert.equal(updates, COUNT);
        assert.equal(flood.progress.updates, COUNT);
        process.stderr.write(
          `# ${name}: agent held at ${(held / MiB).toFixed(1)} MiB of ${(COUNT * SIZE) / MiB} MiB offered\n`,
        );
        reader.releaseLock();
        await writer.close();
      },
    );
  }
});
