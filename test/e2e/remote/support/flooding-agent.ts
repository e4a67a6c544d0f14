/**
 * Backpressure tests' remote end: `listenAcp` on 127.0.0.1 hosting an in-process acpkit agent app whose prompt
 * "COUNT SIZE" sends COUNT `agent_message_chunk`s of SIZE characters, each awaited (so backpressure can hold it), and
 * counts what it managed to send. Every byte it sent that the client did not take yet is held somewhere between
 * them (the server's bounded buffer, the kernel's socket buffers, the client), so its progress while the client
 * reads nothing bounds what the client buffers.
 */
import { agent } from "../../../../src/agent/agent-app.js";
import { listenAcp, type ListeningAcpServer } from "../../../../src/entries/node.js";

export interface FloodingAgent {
  readonly listening: ListeningAcpServer;
  /** Updates and characters the agent has sent so far (each `notify` resolved). */
  readonly progress: { updates: number; chars: number };
}

/** The text of update `i` of SIZE characters: its index first, so the client can check the order. */
export const floodText = (i: number, size: number) => `${i} `.padEnd(size, "x");

/** Starts the server; `maxBufferedBytes` is what it may queue per connection before the agent waits. */
export async function startFloodingAgent(maxBufferedBytes = 1024 * 1024): Promise<FloodingAgent> {
  const progress = { updates: 0, chars: 0 };
  let sessions = 0;
  const app = agent({ name: "flooding-agent" })
    .onRequest("initialize", ({ params }) => ({ protocolVersion: params.protocolVersion, agentCapabilities: {} }))
    .onRequest("session/new", () => ({ sessionId: `flood-${++sessions}` }))
    .onRequest("session/prompt", async ({ params, client }) => {
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      const [count, size] = text.split(" ").map(Number) as [number, number];
      for (let i = 0; i < count; i++) {
        const chunk = floodText(i, size);
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } },
        });
        progress.updates++;
        progress.chars += chunk.length;
      }
      return { stopReason: "end_turn" };
    });
  const listening = await listenAcp({ agent: app, token: "flood-token", maxBufferedBytes, maxOutputStallMs: 600_000 });
  return { listening, progress };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until `read()` stops moving (unchanged for `quietPolls` polls 50 ms apart) or reaches `total`; returns its
 * value then. A stall is what backpressure looks like from outside: the assertion is on the value, not the time.
 */
export async function plateau(read: () => number, total: number, quietPolls = 20): Promise<number> {
  let last = -1;
  let quiet = 0;
  for (;;) {
    await delay(50);
    const now = read();
    if (now >= total) return now;
    if (now !== last) {
      last = now;
      quiet = 0;
    } else if (++quiet >= quietPolls) return now;
  }
}
