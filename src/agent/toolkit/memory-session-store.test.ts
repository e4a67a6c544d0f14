import assert from "node:assert/strict";
import { test } from "node:test";
import { MemorySessionStore } from "./memory-session-store.js";
import type { StoredSession } from "./session-store.js";
import { sessionStoreContract } from "./testing/store-contract.js";

const session = (sessionId: string, cwd: string, updatedAt: string): StoredSession => ({
  sessionId,
  cwd,
  createdAt: updatedAt,
  updatedAt,
});

test("the memory store keeps history in order, copies values, pages with a cursor and filters by cwd", async () => {
  const store = new MemorySessionStore();
  await store.create(session("a", "/x", "2025-01-01T00:00:00Z"));
  await store.create(session("b", "/y", "2025-01-02T00:00:00Z"));
  await store.create(session("c", "/x", "2025-01-03T00:00:00Z"));
  const record = { kind: "data" as const, data: { n: 1 } };
  await store.append("a", [record]);
  record.data.n = 2;
  assert.deepEqual(await store.history("a"), [{ kind: "data", data: { n: 1 } }]);
  const first = await store.list({ limit: 2 });
  assert.deepEqual(
    first.sessions.map((s) => s.sessionId),
    ["c", "b"],
  );
  const second = await store.list({ limit: 2, cursor: first.nextCursor! });
  assert.deepEqual(
    second.sessions.map((s) => s.sessionId),
    ["a"],
  );
  assert.equal(second.nextCursor, undefined);
  assert.deepEqual(
    (await store.list({ cwd: "/x" })).sessions.map((s) => s.sessionId),
    ["c", "a"],
  );
  await store.update("a", { title: "T", updatedAt: "2025-01-04T00:00:00Z" });
  assert.deepEqual(
    (await store.list({})).sessions.map((s) => s.sessionId),
    ["a", "c", "b"],
  );
  await store.delete("a");
  await store.delete("a");
  assert.equal(await store.get("a"), undefined);
});

sessionStoreContract({
  name: "MemorySessionStore",
  open: async () => new MemorySessionStore(),
  // Its sessions live in its memory: a "restart" keeps the same store.
  reopen: async (store) => store,
});
