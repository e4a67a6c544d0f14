/**
 * An in-process agent for the server's unit tests (an acpkit `agent()` app): sessions "sess-N", a prompt whose text
 * picks a behaviour ("stream N", "permission", "slow" until cancelled, "flood N" without awaiting, anything else is
 * echoed), and `session/load` replaying two updates. It counts its connections and how many have closed.
 */
import { agent } from "../../../agent/agent-app.js";
import type { AgentContext } from "../../../agent/agent-app.js";

export interface TestAgentStats {
  connected: number;
  closed: number;
  /** Resolvers waiting for `closed` to reach a count. */
  waiters: Array<{ count: number; resolve: () => void }>;
}

function chunk(sessionId: string, text: string) {
  return {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text } },
  };
}

/** A test agent app and its stats. */
export function testAgent() {
  const stats: TestAgentStats = { connected: 0, closed: 0, waiters: [] };
  let sessions = 0;
  const cancels = new Map<string, () => void>();
  const app = agent({ name: "remote-test-agent" })
    .onConnect((connection) => {
      stats.connected++;
      void connection.closed.then(() => {
        stats.closed++;
        for (const waiter of stats.waiters.filter((w) => stats.closed >= w.count)) waiter.resolve();
      });
    })
    .onRequest("initialize", ({ params }) => ({
      protocolVersion: params.protocolVersion,
      agentCapabilities: { loadSession: true },
      agentInfo: { name: "remote-test-agent", version: "1.0.0" },
    }))
    .onRequest("session/new", () => ({ sessionId: `sess-${++sessions}` }))
    .onRequest("session/load", async ({ params, client }) => {
      await client.notify("session/update", chunk(params.sessionId, "replayed"));
      return {};
    })
    .onNotification("session/cancel", ({ params }) => cancels.get(params.sessionId)?.())
    .onRequest("session/prompt", async ({ params, client }) => {
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      const [command, arg] = text.split(" ");
      return behaviour(client, params.sessionId, command ?? "", Number(arg ?? 0), cancels);
    });
  const closedCount = (count: number) =>
    stats.closed >= count ? Promise.resolve() : new Promise<void>((resolve) => stats.waiters.push({ count, resolve }));
  return { app, stats, closedCount };
}

async function behaviour(
  client: AgentContext,
  sessionId: string,
  command: string,
  count: number,
  cancels: Map<string, () => void>,
) {
  switch (command) {
    case "stream":
      for (let i = 0; i < count; i++) await client.notify("session/update", chunk(sessionId, `chunk ${i}`));
      return { stopReason: "end_turn" as const };
    case "flood":
      // Does not await its sends: only the server's hard limit stops it.
      for (let i = 0; i < count; i++)
        void client.notify("session/update", chunk(sessionId, `flood ${i} ${"x".repeat(1000)}`));
      return { stopReason: "end_turn" as const };
    case "permission": {
      const answer = await client.request("session/request_permission", {
        sessionId,
        toolCall: { toolCallId: "call-1", title: "Edit", kind: "edit" as const, status: "pending" as const },
        options: [{ optionId: "allow", name: "Allow", kind: "allow_once" as const }],
      });
      await client.notify("session/update", chunk(sessionId, `outcome ${JSON.stringify(answer.outcome)}`));
      return { stopReason: "end_turn" as const };
    }
    case "slow":
      await client.notify("session/update", chunk(sessionId, "waiting"));
      await new Promise<void>((resolve) => cancels.set(sessionId, resolve));
      return { stopReason: "cancelled" as const };
    default:
      await client.notify("session/update", chunk(sessionId, `echo ${command}`));
      return { stopReason: "end_turn" as const };
  }
}
