import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySessionStore } from "./memory-session-store.js";
import { SessionOutbox } from "./session-outbox.js";
import type { SessionRecord } from "./session-store.js";
import { connectToolkit, until } from "./testing/harness.js";
import { MessageTooLargeError } from "../../jsonrpc/local-errors.js";
import { silentLogger } from "../../jsonrpc/logger.js";
import type { SessionUpdate } from "../../protocol/index.js";

/** A store that logs each append and can hold them until the test releases them. */
class WatchedStore extends MemorySessionStore {
  readonly appends: number[] = [];
  readonly events: string[] = [];
  held: Array<() => void> = [];
  hold = false;

  override async append(sessionId: string, records: readonly SessionRecord[]): Promise<void> {
    this.appends.push(records.length);
    // As a store doing I/O: the append completes in a later macrotask.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    await super.append(sessionId, records);
    this.events.push(`durable:${records.length}`);
  }

  release(): void {
    this.hold = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

/** A store with session "s" (and "t") created. */
async function watchedStore(): Promise<WatchedStore> {
  const store = new WatchedStore();
  const now = new Date().toISOString();
  for (const sessionId of ["s", "t"]) await store.create({ sessionId, cwd: "/work", createdAt: now, updatedAt: now });
  return store;
}

const chunk = (text: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
});

test(
  "group commit: the updates of one tick are appended as one batch, and none is sent before that append " + "resolved",
  async () => {
    const store = await watchedStore();
    const sent: string[] = [];
    const outbox = new SessionOutbox({
      sessionId: "s",
      store,
      logger: silentLogger,
      notify: async (update) => {
        sent.push((update as { content: { text: string } }).content.text);
        store.events.push("sent");
      },
    });
    store.hold = true;
    const offered = Array.from({ length: 100 }, (_, i) =>
      outbox.offer({ kind: "update", update: chunk(String(i)) }, true),
    );
    await Promise.all(offered); // accepted (the window is not full): the caller goes on while the batch is written
    await until(() => store.appends.length === 1, 2000, "the batch's append");
    assert.deepEqual(store.appends, [100], "one append for the whole tick");
    assert.equal(outbox.busy, true);
    assert.deepEqual(sent, [], "nothing is sent while its batch is not durable");
    store.release();
    await outbox.sent();
    assert.deepEqual(
      sent,
      Array.from({ length: 100 }, (_, i) => String(i)),
    );
    assert.equal(store.events[0], "durable:100", "the batch was durable before the first of its updates was sent");
    assert.equal(outbox.busy, false);
  },
);

test(
  "a producer awaiting each update still gets batches: at most " + "two windows wait, each sent after it is durable",
  async () => {
    const store = await watchedStore();
    let durable = 0;
    const append = store.append.bind(store);
    store.append = async (sessionId, records) => {
      await append(sessionId, records);
      durable += records.length;
    };
    const durableAtSend: number[] = [];
    const outbox = new SessionOutbox({
      sessionId: "t",
      store,
      logger: silentLogger,
      window: 64,
      notify: async () => void durableAtSend.push(durable),
    });
    for (let i = 0; i < 2000; i++) {
      await outbox.offer({ kind: "update", update: chunk(String(i)) }, true);
      assert.ok(i + 1 - durableAtSend.length <= 2 * 64 + 1, `update ${i}: no more than two windows wait unsent`);
    }
    await outbox.sent();
    assert.equal(durableAtSend.length, 2000);
    assert.ok(store.appends.length <= 2000 / 64 + 2, `group commit: ${store.appends.length} appends for 2000 updates`);
    durableAtSend.forEach((count, index) =>
      assert.ok(count > index, `update ${index} was sent after ${count} records were durable`),
    );
  },
);

test("records only (data) keep their place among the updates and resolve once durable", async () => {
  const store = await watchedStore();
  const outbox = new SessionOutbox({ sessionId: "s", store, logger: silentLogger, notify: async () => {} });
  void outbox.offer({ kind: "update", update: chunk("a") }, true);
  void outbox.offer({ kind: "data", data: { model: "context" } }, false);
  void outbox.offer({ kind: "update", update: chunk("b") }, true);
  await outbox.written();
  const history = await store.history("s");
  assert.deepEqual(
    history.map((r) => (r.kind === "data" ? "data" : (r.update as { content: { text: string } }).content.text)),
    ["a", "data", "b"],
  );
});

test(
  "a failed send is reported to the next update offered; a " + "failed append is logged and the batch still sent",
  async () => {
    const store = new WatchedStore();
    const errors: string[] = [];
    let calls = 0;
    const outbox = new SessionOutbox({
      sessionId: "s",
      store,
      logger: { ...silentLogger, error: (message: string) => void errors.push(message) },
      notify: async () => {
        calls++;
        if (calls === 2) throw new Error("the connection is closed");
      },
    });
    store.append = async () => {
      throw new Error("disk full");
    };
    await outbox.offer({ kind: "update", update: chunk("one") }, true);
    await outbox.offer({ kind: "update", update: chunk("two") }, true);
    await outbox.sent();
    assert.equal(calls, 2, "sent although the append failed");
    assert.match(errors.join("\n"), /could not record session history/);
    await assert.rejects(outbox.offer({ kind: "update", update: chunk("three") }, true), /the connection is closed/);
  },
);

test(
  "a request of the turn never overtakes the updates offered " + "before it; the response comes after every update",
  async () => {
    const store = new WatchedStore();
    const order: string[] = [];
    const harness = await connectToolkit(
      {
        store,
        onPrompt: async (turn) => {
          store.hold = true;
          void turn.say("before the question");
          const call = turn.toolCall({ title: "Write a file", kind: "edit", status: "pending" });
          setTimeout(() => store.release(), 20);
          const decision = await turn.requestPermission(call);
          await turn.say(`allowed: ${decision.allowed}`);
          return "end_turn";
        },
      },
      {},
      {
        sessionUpdate: (params) => void order.push(`update:${params.update.sessionUpdate}`),
        requestPermission: () => {
          order.push("permission");
          return { outcome: { outcome: "selected", optionId: "allow_once" } };
        },
      },
    );
    const { sessionId } = await harness.client.newSession({ cwd: "/work", mcpServers: [] });
    const response = await harness.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] });
    order.push(`response:${response.stopReason}`);
    const at = order.indexOf("permission");
    assert.ok(at > 0, order.join(","));
    const before = order.slice(0, at);
    assert.ok(
      before.includes("update:agent_message_chunk") && before.includes("update:tool_call"),
      `both updates came before the request: ${order.join(",")}`,
    );
    assert.equal(order.at(-1), "response:end_turn");
    assert.equal(
      order.filter((event) => event === "update:agent_message_chunk").length,
      2,
      "the answer's chunk came before the response",
    );
  },
);

test(
  "an update the link refuses for itself (too large) fails " + "only that update: later offers are still sent",
  async () => {
    const store = await watchedStore();
    const sent: string[] = [];
    const errors: string[] = [];
    const outbox = new SessionOutbox({
      sessionId: "s",
      store,
      logger: { ...silentLogger, error: (message) => errors.push(message) },
      notify: async (update) => {
        const text = (update as { content: { text: string } }).content.text;
        if (text === "huge") throw new MessageTooLargeError(10, 20, "outgoing");
        sent.push(text);
      },
    });
    await outbox.offer({ kind: "update", update: chunk("a") }, true);
    await outbox.offer({ kind: "update", update: chunk("huge") }, true);
    await outbox.sent();
    await outbox.offer({ kind: "update", update: chunk("b") }, true);
    await outbox.sent();
    assert.deepEqual(sent, ["a", "b"]);
    assert.equal(errors.length, 1, "the refused update is reported");
    // A failure of the connection itself still stops the outbox.
    const gone = new Error("connection closed");
    const broken = new SessionOutbox({
      sessionId: "s",
      store,
      logger: silentLogger,
      notify: async () => Promise.reject(gone),
    });
    await broken.offer({ kind: "update", update: chunk("c") }, true);
    await broken.sent();
    await assert.rejects(broken.offer({ kind: "update", update: chunk("d") }, true), /connection closed/);
  },
);
