/** Test helper: a v2 agent app that plays scripted updates per prompt, and a session opened on it. */
import type { SessionConfigOption, SessionUpdate } from "../../../protocol/v2.js";
import { agent } from "../../../agent/v2/agent-app.js";
import { client } from "../client-app.js";
import type { ActiveSession } from "../active-session.js";

export const info = { name: "test-client", version: "1.0.0" };
export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

export const modelOption = (value: string): SessionConfigOption => ({
  type: "select",
  configId: "model",
  name: "Model",
  currentValue: value,
  options: [
    { value: "fast", name: "Fast" },
    { value: "deep", name: "Deep" },
  ],
});
export const text = (value: string) => ({ type: "text" as const, text: value });
export const chunk = (messageId: string, value: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: text(value),
});
export const idle = (stopReason?: string, background?: unknown): SessionUpdate =>
  ({
    sessionUpdate: "state_update",
    state: "idle",
    ...(stopReason ? { stopReason } : {}),
    ...(background !== undefined ? { background } : {}),
  }) as SessionUpdate;

export type Emit = (update: SessionUpdate) => Promise<void>;

/**
 * A v2 agent whose one session ("s1") runs a script per prompt text; `beforeResponse` updates go out before the
 * session/new response, `afterResponse` ones right after it (in the same turn). Records what it was asked.
 */
export function scriptedAgent(options: {
  scripts?: Record<string, (emit: Emit) => Promise<void>>;
  beforeResponse?: SessionUpdate[];
  afterResponse?: SessionUpdate[];
  configOptions?: SessionConfigOption[];
}) {
  const calls: unknown[] = [];
  const app = agent()
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "scripted", version: "1" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", ({ client: peer }) => {
      const response = { sessionId: "s1", ...(options.configOptions ? { configOptions: options.configOptions } : {}) };
      const before = options.beforeResponse ?? [];
      if (before.length > 0)
        return Promise.all(before.map((update) => peer.notify("session/update", { sessionId: "s1", update }))).then(
          () => response,
        );
      // Answered synchronously, these go out right behind the response, delivered with it (the memory pair delivers
      // what one turn sent together): they arrive before the client's session/new call has resumed.
      for (const update of options.afterResponse ?? [])
        queueMicrotask(() => void peer.notify("session/update", { sessionId: "s1", update }));
      return response;
    })
    .onRequest("session/prompt", async ({ params, client: peer }) => {
      calls.push(["prompt", params.prompt]);
      const script = options.scripts?.[(params.prompt[0] as { text?: string }).text ?? ""];
      if (script) await script((update) => peer.notify("session/update", { sessionId: params.sessionId, update }));
      return { messageId: `user-${calls.length}` };
    })
    .onRequest("session/set_config_option", ({ params }) => {
      calls.push(["set_config_option", params]);
      return { configOptions: [modelOption(String(params.value))] };
    })
    .onRequest("tool_call/cancel", ({ params }) => void calls.push(["tool_call/cancel", params]))
    .onRequest("terminal/cancel", ({ params }) => void calls.push(["terminal/cancel", params]));
  return { app, calls };
}

/** Initializes, starts the session, runs `op`, disposes. */
export function withSession<T>(app: ReturnType<typeof agent>, op: (session: ActiveSession) => Promise<T>): Promise<T> {
  return client().connectWith(app, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 2, info });
    return ctx.buildSession("/work").withSession(op);
  });
}
