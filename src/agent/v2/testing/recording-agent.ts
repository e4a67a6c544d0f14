/** Test helper: a v2 agent app that records what its handlers see, and the messages its tests send it. */
import { agent } from "../agent-app.js";

export const info = { name: "test-client", version: "1.0.0" };
export const agentInfo = { name: "test-agent", version: "2.0.0" };
export const v2Initialize = { protocolVersion: 2, info };
export const newSession = { cwd: "/work", mcpServers: [] };
export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
export const codeOf = (message: Record<string, unknown>) => (message.error as { code?: number } | undefined)?.code;

/** A v2 agent that records what its handlers see. */
export function recordingAgent() {
  const log: unknown[] = [];
  const app = agent()
    .onRequest("initialize", ({ params }) => {
      log.push(["initialize", params]);
      return { protocolVersion: 2, info: agentInfo };
    })
    .onRequest("session/new", () => ({ sessionId: "s1" }))
    .onNotification("session/cancel", ({ params }) => void log.push(["cancel", params.sessionId]));
  return { app, log };
}
