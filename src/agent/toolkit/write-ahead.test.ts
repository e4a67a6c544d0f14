import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySessionStore } from "./memory-session-store.js";
import type { SessionRecord } from "./session-store.js";
import { connectToolkit, delay, until } from "./testing/harness.js";

/** A store whose appends wait until the test releases them. */
class HeldStore extends MemorySessionStore {
  held: Array<() => void> = [];
  hold = false;

  override async append(sessionId: string, records: readonly SessionRecord[]): Promise<void> {
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    return super.append(sessionId, records);
  }
}

test("an update reaches the client only after it is recorded (write-ahead), and in order", async () => {
  const store = new HeldStore();
  let release!: () => void;
  const started = new Promise<void>((resolve) => (release = resolve));
  const harness = await connectToolkit({
    store,
    onPrompt: async (turn) => {
      store.hold = true;
      release();
      await Promise.all([turn.say("one"), turn.say("two")]);
      return "end_turn";
    },
  });
  const { sessionId } = await harness.client.newSession({ cwd: "/work", mcpServers: [] });
  const prompt = harness.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] });
  await started;
  await delay(20);
  const chunks = () => harness.updates.filter((u) => u.update.sessionUpdate === "agent_message_chunk");
  assert.equal(chunks().length, 0, "nothing is sent while its record is not written");
  store.hold = false;
  for (const resolve of store.held.splice(0)) resolve();
  await until(() => chunks().length === 2, 2000, "both chunks");
  await prompt;
  assert.deepEqual(
    chunks().map((u) => (u.update as { content: { text: string } }).content.text),
    ["one", "two"],
  );
  const replayed = (await store.history(sessionId)).filter(
    (r) => r.kind === "update" && r.update.sessionUpdate === "agent_message_chunk",
  );
  assert.equal(replayed.length, 2);
});
