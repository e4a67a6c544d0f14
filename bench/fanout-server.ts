/**
 * The fan-out bench's server child: `listenAcp` (no token, 127.0.0.1, a free port) with shared sessions on, running
 * an in-process acpkit agent whose prompt "stream N" sends N `agent_message_chunk` updates (each awaited, so the
 * agent goes as fast as its own client reads). Prints `url <http url>` on stdout. Run only by `fanout-bench.ts`
 * (`node fanout-server.js --serve`); does nothing without that argument.
 */
import { agent } from "../src/entries/index.js";
import { listenAcp } from "../src/entries/node.js";
import { chunkText } from "./workloads.js";

async function serve(): Promise<void> {
  const app = agent({ name: "fanout-bench-agent" })
    .onRequest("initialize", ({ params }) => ({
      protocolVersion: params.protocolVersion,
      agentCapabilities: {},
      agentInfo: { name: "fanout-bench-agent", version: "1" },
    }))
    .onRequest("session/new", () => ({ sessionId: `fanout-${Math.random().toString(36).slice(2)}` }))
    .onRequest("session/prompt", async ({ params, client }) => {
      const first = params.prompt[0];
      const count = Number(first?.type === "text" ? first.text.split(" ")[1] : 0);
      for (let i = 0; i < count; i++)
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunkText(i) } },
        });
      return { stopReason: "end_turn" as const };
    });
  const sharing = process.argv.includes("--no-share") ? false : true;
  const listening = await listenAcp({
    agent: app,
    insecureNoToken: true,
    port: 0,
    sharedSessions: sharing,
    maxConnections: 1000,
  });
  process.stdout.write(`url ${listening.url}\n`);
  process.stdin.on("end", () => void listening.close().then(() => process.exit(0)));
  process.stdin.resume();
}

if (process.argv.includes("--serve")) void serve();
