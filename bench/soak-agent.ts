/**
 * The soak's agent (a child process): an acpkit toolkit agent over stdio whose every prompt streams
 * `SOAK_CHUNKS` message chunks of `SOAK_CHUNK_BYTES` (awaited, as a well-behaved agent does), then ends the turn.
 * It runs a full GC before answering `_soak/rss`, so that the orchestrator samples live memory, not garbage.
 */
import { AgentSideConnection } from "../src/agent/agent-side-connection.js";
import { toolkitAgent } from "../src/agent/toolkit/toolkit-agent.js";
import { stdioStream } from "../src/node/stdio/stdio.js";
import { collectGarbage } from "./rss.js";

const chunks = Number(process.env.SOAK_CHUNKS ?? 100);
const text = "x".repeat(Number(process.env.SOAK_CHUNK_BYTES ?? 1024));

new AgentSideConnection((connection) => {
  const agent = toolkitAgent(connection, {
    store: false,
    onPrompt: async (turn) => {
      for (let i = 0; i < chunks && !turn.signal.aborted; i++) await turn.say(text);
      return "end_turn";
    },
  });
  return Object.assign(agent, {
    extMethod: async (method: string) => {
      if (method !== "_soak/rss" && method !== "soak/rss") throw new Error(`unknown ${method}`);
      collectGarbage();
      return {
        rss: process.memoryUsage.rss(),
        heap: process.memoryUsage().heapUsed,
        handles: process.getActiveResourcesInfo().length,
      };
    },
  });
}, stdioStream());
