/**
 * acpkit's v2 `ActiveSession` against the official SDK 2.4.0's: one scripted acpkit agent serves both clients over
 * web streams, and what each session reads and tracks (messages, stop reasons, text, background, cancellable
 * entities, config options, refusals) must be the same.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk/experimental/v2";
import type { SessionUpdate } from "../../protocol/v2.js";
import { agent } from "../../agent/v2/agent-app.js";
import { client } from "./client-app.js";

const option = (value: string) => ({
  type: "select",
  configId: "mode",
  name: "Mode",
  currentValue: value,
  options: [{ value, name: value }],
});
const chunk = (messageId: string, text: string) => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: { type: "text", text },
});

/** Each prompt text names a list of updates the agent sends before answering. */
const scripts: Record<string, unknown[]> = {
  one: [
    { sessionUpdate: "state_update", state: "running" },
    chunk("m1", "Hel"),
    { sessionUpdate: "agent_thought_chunk", messageId: "t1", content: { type: "text", text: "hmm" } },
    chunk("m1", "lo"),
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      title: "Run",
      status: "in_progress",
      capabilities: { cancel: {} },
    },
    { sessionUpdate: "terminal_update", terminalId: "t1", capabilities: { cancel: {} } },
    { sessionUpdate: "agent_message", messageId: "m2", content: [{ type: "text", text: " world" }] },
    { sessionUpdate: "config_option_update", configOptions: [option("plan")] },
    {
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "end_turn",
      background: [{ type: "tool_call", toolCallId: "c1" }],
    },
  ],
  two: [
    { sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed", capabilities: null },
    { sessionUpdate: "terminal_update", terminalId: "t1" },
    { sessionUpdate: "future_update_kind", anything: 1 },
    { sessionUpdate: "state_update", state: "requires_action" },
    { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled", background: "not a list" },
    { sessionUpdate: "state_update", state: "idle" },
  ],
};

function scriptedAgent() {
  return agent({ validateOutgoing: "off" })
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "scripted", version: "1" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", () => ({ sessionId: "s1", configOptions: [option("ask")] }))
    .onRequest("session/set_config_option", ({ params }) => ({ configOptions: [option(String(params.value))] }))
    .onRequest("session/prompt", async ({ params, client: peer }) => {
      for (const update of scripts[(params.prompt[0] as { text: string }).text] ?? []) {
        await peer.notify("session/update", { sessionId: "s1", update: update as SessionUpdate });
      }
      return { messageId: "u" };
    });
}

type AnySession = {
  prompt(prompt: unknown): Promise<unknown>;
  nextUpdate(signal?: AbortSignal): Promise<{ kind: string; update: { sessionUpdate: string }; stopReason?: unknown }>;
  readTextUntilIdle(): Promise<string>;
  readonly background: unknown;
  readonly configOptions: unknown;
  canCancelToolCall(id: string): boolean;
  canCancelTerminal(id: string): boolean;
  cancelToolCall(id: string): Promise<unknown>;
  isForBackgroundWork(request: unknown): boolean;
  setConfigOption(request: unknown): Promise<unknown>;
  dispose(): void;
};

/** What a session shows over the whole script. */
async function observe(session: AnySession): Promise<unknown[]> {
  const seen: unknown[] = [];
  const state = () => ({
    background: session.background,
    configOptions: session.configOptions,
    tool: session.canCancelToolCall("c1"),
    terminal: session.canCancelTerminal("t1"),
    forBackground: session.isForBackgroundWork({
      sessionId: "s1",
      title: "t",
      options: [],
      subject: { type: "tool_call", toolCall: { toolCallId: "c1" } },
    }),
  });
  seen.push(state());
  await session.prompt("one");
  seen.push(state());
  const read: unknown[] = [];
  for (let i = 0; i < 3; i++) {
    const message = await session.nextUpdate();
    read.push([message.kind, message.update.sessionUpdate, message.stopReason]);
  }
  seen.push(read, await session.readTextUntilIdle());
  await session.prompt("two");
  seen.push(state());
  for (let i = 0; i < 6; i++) {
    const message = await session.nextUpdate();
    seen.push([message.kind, message.update.sessionUpdate, message.stopReason]);
  }
  seen.push(await session.prompt([]).then(String, (error: Error) => `${error.name}: ${error.message}`));
  seen.push(await session.cancelToolCall("c1").then(String, (error: Error) => `${error.name}: ${error.message}`));
  seen.push(await session.setConfigOption({ configId: "mode", type: "id", value: "code" }), session.configOptions);
  const aborted = new AbortController();
  aborted.abort(new Error("aborted read"));
  seen.push(await session.nextUpdate(aborted.signal).then(String, (error: Error) => error.message));
  session.dispose();
  seen.push(await session.nextUpdate().then(String, (error: Error) => error.message));
  return seen;
}

test("ActiveSession parity: the same script read through acpkit's and the official client", async () => {
  const run = async (
    makeClient: () => { connectWith: (stream: never, op: (ctx: never) => Promise<unknown>) => Promise<unknown> },
  ) => {
    const toAgent = new TransformStream();
    const toClient = new TransformStream();
    scriptedAgent().connect({ readable: toAgent.readable, writable: toClient.writable });
    return makeClient().connectWith(
      { readable: toClient.readable, writable: toAgent.writable } as never,
      async (ctx: never) => {
        const context = ctx as {
          request(method: string, params: unknown): Promise<unknown>;
          buildSession(cwd: string): { start(): Promise<AnySession> };
        };
        await context.request("initialize", { protocolVersion: 2, info: { name: "c", version: "1" } });
        return observe(await context.buildSession("/work").start());
      },
    );
  };
  const theirs = await run(() => official.client() as never);
  const ours = await run(() => client() as never);
  assert.deepEqual(JSON.parse(JSON.stringify(ours)), JSON.parse(JSON.stringify(theirs)));
});
