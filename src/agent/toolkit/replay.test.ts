import assert from "node:assert/strict";
import { test } from "node:test";
import type { Logger } from "../../jsonrpc/logger.js";
import type { SessionNotification } from "../../protocol/index.js";
import { MemorySessionStore } from "./memory-session-store.js";
import type { SessionRecord } from "./session-store.js";
import { connectToolkit } from "./testing/harness.js";

const LIMIT = 4096;
const cwd = "/work";

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug: () => {}, info: () => {}, warn: () => {}, error: (message) => errors.push(message) };
}

const textOf = (notification: SessionNotification) =>
  (notification.update as { content?: { text?: string } }).content?.text ?? "";
const say = (text: string): SessionRecord => ({
  kind: "update",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});

/** The longest prompt text (of `unit`s) whose `session/prompt` request still fits under LIMIT. */
function promptJustUnderLimit(sessionId: string, unit: string): string {
  let text = "";
  for (;;) {
    const next = text + unit;
    const frame = JSON.stringify({
      jsonrpc: "2.0",
      id: 99,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: next }] },
    });
    if (new TextEncoder().encode(frame).length + 1 > LIMIT) return text;
    text = next;
  }
}

for (const [label, unit] of [
  ["ASCII", "a"],
  ["astral characters (never split inside one)", "😀"],
] as const) {
  test(
    `a prompt just under the message limit (${label}) is accepted, and session/load replays it in chunks under ` +
      `the limit`,
    async () => {
      const store = new MemorySessionStore();
      const first = await connectToolkit(
        { store, onPrompt: async (turn) => void (await turn.say("ok")) },
        {},
        {},
        { maxMessageBytes: LIMIT },
      );
      const { sessionId } = await first.client.newSession({ cwd, mcpServers: [] });
      const text = promptJustUnderLimit(sessionId, unit);
      assert.deepEqual(await first.client.prompt({ sessionId, prompt: [{ type: "text", text }] }), {
        stopReason: "end_turn",
      });

      const second = await connectToolkit(
        { store, onPrompt: async () => "end_turn" },
        {},
        {},
        { maxMessageBytes: LIMIT },
      );
      await second.client.loadSession({ sessionId, cwd, mcpServers: [] });
      const user = second.updates.filter((n) => n.update.sessionUpdate === "user_message_chunk");
      assert.ok(user.length >= 2, "split into several chunks");
      assert.equal(user.map(textOf).join(""), text, "the chunks add up to the prompt, in order");
      for (const chunk of user)
        assert.ok(
          !/^[\udc00-\udfff]/.test(textOf(chunk)) && !/[\ud800-\udbff]$/.test(textOf(chunk)),
          "no chunk splits a character",
        );
      assert.deepEqual(second.updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk").map(textOf), [
        "ok",
      ]);
    },
  );
}

test(
  "a stored update that fails the schema, or is too large to split, is skipped and reported; the rest is " + "replayed",
  async () => {
    const store = new MemorySessionStore();
    const now = new Date().toISOString();
    await store.create({ sessionId: "s1", cwd, createdAt: now, updatedAt: now });
    const bad = {
      kind: "update",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text" } },
    } as unknown as SessionRecord;
    const image: SessionRecord = {
      kind: "update",
      update: {
        sessionUpdate: "user_message_chunk",
        content: { type: "image", mimeType: "image/png", data: "A".repeat(LIMIT) },
      },
    };
    const records = [say("one")];
    for (let i = 0; i < 5; i++) records.push(bad, say(`after bad ${i}`));
    records.push(image, say("last"));
    await store.append("s1", records);

    const logger = recordingLogger();
    const client = await connectToolkit(
      { store, logger, onPrompt: async () => "end_turn" },
      {},
      {},
      { maxMessageBytes: LIMIT },
    );
    const response = await client.client.loadSession({ sessionId: "s1", cwd, mcpServers: [] });
    assert.deepEqual(client.updates.map(textOf), [
      "one",
      "after bad 0",
      "after bad 1",
      "after bad 2",
      "after bad 3",
      "after bad 4",
      "last",
    ]);
    assert.equal(logger.errors.length, 6, "each skipped record is reported");
    assert.deepEqual((response?._meta as Record<string, unknown> | undefined)?.["acpkit/replay"], { skipped: 6 });
  },
);
