/**
 * The agent the shared-session tests share (an in-process acpkit `agent()` app, one per connection as the server
 * hosts it). A prompt's text picks what it does: "stream N" (N numbered updates `u0`..), "paced N MS" (the same, MS
 * apart), "permissions N" (N permission requests one after another, an update `outcome i <optionId|cancelled>`
 * after each), "read PATH" (an `fs/read_text_file` of the client), "slow" (waits until cancelled), "flow" (numbered
 * updates in bursts of 10, 10 ms apart, until cancelled); anything else
 * is echoed. `stats`, when given, counts what the agent received as answers to its permission requests (seen on
 * its connections' taps, before its engine drops a second answer to one request). Nothing runs when this module is
 * imported.
 */
import { agent } from "../../../../src/entries/index.js";

function chunk(sessionId: string, text: string) {
  return {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text } },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the agent was sent in answer to its permission requests, by session. */
export class SharedAgentStats {
  /** Answers received per session (each request's first and any later one). */
  readonly permissionAnswers = new Map<string, number>();
  /** Answers to a permission request that had already been answered (must stay 0). */
  duplicateAnswers = 0;

  answers(sessionId: string): number {
    return this.permissionAnswers.get(sessionId) ?? 0;
  }
}

export function sharedTestAgent(stats?: SharedAgentStats) {
  let sessions = 0;
  const cancels = new Map<string, () => void>();
  return agent({ name: "shared-test-agent" })
    .onConnect((connection) => {
      if (stats === undefined) return;
      // Per connection: the ids of its permission requests (by session) and which were answered.
      const asked = new Map<unknown, string>();
      const answered = new Set<unknown>();
      connection.tap((event) => {
        if (!("message" in event)) return;
        const { direction, message } = event;
        const frame = message as { id?: unknown; method?: string; params?: { sessionId?: string } };
        if (direction === "out" && frame.method === "session/request_permission")
          asked.set(frame.id, frame.params?.sessionId ?? "");
        else if (direction === "in" && frame.method === undefined && asked.has(frame.id)) {
          const sessionId = asked.get(frame.id)!;
          stats.permissionAnswers.set(sessionId, stats.answers(sessionId) + 1);
          if (answered.has(frame.id)) stats.duplicateAnswers++;
          answered.add(frame.id);
        }
      });
    })
    .onRequest("initialize", ({ params }) => ({
      protocolVersion: params.protocolVersion,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: "shared-test-agent", version: "1.0.0" },
    }))
    .onRequest("session/new", () => ({ sessionId: `shared-${process.pid}-${++sessions}` }))
    .onNotification("session/cancel", ({ params }) => cancels.get(params.sessionId)?.())
    .onRequest("session/prompt", async ({ params, client }) => {
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      const [command, first, second] = text.split(" ");
      const sessionId = params.sessionId;
      const count = Number(first ?? 0);
      switch (command) {
        case "stream":
          for (let i = 0; i < count; i++) await client.notify("session/update", chunk(sessionId, `u${i}`));
          return { stopReason: "end_turn" as const };
        case "paced":
          for (let i = 0; i < count; i++) {
            await client.notify("session/update", chunk(sessionId, `u${i}`));
            await sleep(Number(second ?? 10));
          }
          return { stopReason: "end_turn" as const };
        case "permissions":
          for (let i = 0; i < count; i++) {
            const answer = await client.request("session/request_permission", {
              sessionId,
              toolCall: {
                toolCallId: `call-${i}`,
                title: `Edit ${i}`,
                kind: "edit" as const,
                status: "pending" as const,
              },
              options: [
                { optionId: "allow", name: "Allow", kind: "allow_once" as const },
                { optionId: "reject", name: "Reject", kind: "reject_once" as const },
              ],
            });
            const outcome = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
            await client.notify("session/update", chunk(sessionId, `outcome ${i} ${outcome}`));
          }
          return { stopReason: "end_turn" as const };
        case "read": {
          try {
            const file = await client.request("fs/read_text_file", { sessionId, path: first ?? "/x" });
            await client.notify("session/update", chunk(sessionId, `read ${file.content}`));
          } catch (error) {
            await client.notify("session/update", chunk(sessionId, `read failed ${(error as Error).message}`));
          }
          return { stopReason: "end_turn" as const };
        }
        case "flow": {
          let cancelled = false;
          cancels.set(sessionId, () => (cancelled = true));
          for (let i = 0; !cancelled; await sleep(10))
            for (const end = i + 10; i < end; i++) await client.notify("session/update", chunk(sessionId, `u${i}`));
          return { stopReason: "cancelled" as const };
        }
        case "slow":
          await client.notify("session/update", chunk(sessionId, "waiting"));
          await new Promise<void>((resolve) => cancels.set(sessionId, resolve));
          return { stopReason: "cancelled" as const };
        default:
          await client.notify("session/update", chunk(sessionId, `echo ${text}`));
          return { stopReason: "end_turn" as const };
      }
    });
}
