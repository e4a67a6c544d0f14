/**
 * The `SessionStore` contract as tests, run against every store (memory, file, PostgreSQL): what the toolkit relies
 * on, through the store's own methods and through a toolkit agent on it (load replays every update in order, fork,
 * list, delete, unreplayable records skipped and reported). A store's own test file calls `sessionStoreContract`
 * with a subject that opens stores. For tests only (not shipped); registers nothing unless called.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RequestError } from "../../../jsonrpc/request-error.js";
import type { SessionNotification } from "../../../protocol/index.js";
import { createMemoryPair } from "../../../transports/memory.js";
import * as unstable from "../../../entries/unstable.js";
import type { SessionRecord, SessionStore, StoredSession } from "../session-store.js";
import { toolkitAgent } from "../toolkit-agent.js";
import { connectToolkit } from "./harness.js";

/** A kind of store under test. */
export interface StoreSubject {
  /** In the tests' names: `MemorySessionStore`, ... */
  readonly name: string;
  /** Why the store cannot be tested here (the suite is skipped with it). */
  readonly skip?: string | undefined;
  /** A new store over new, empty storage. */
  open(): Promise<SessionStore>;
  /**
   * Closes `store` and opens another over the same storage, as a restarted process would (a store whose sessions
   * live only in its memory returns itself).
   */
  reopen(store: SessionStore): Promise<SessionStore>;
}

const CWD = "/work/project";
const session = (sessionId: string, cwd = CWD, updatedAt = "2025-01-01T00:00:00.000Z"): StoredSession => ({
  sessionId,
  cwd,
  createdAt: updatedAt,
  updatedAt,
});
const say = (text: string): SessionRecord => ({
  kind: "update",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
});
const textOf = (n: SessionNotification) => (n.update as { content?: { text?: string } }).content?.text ?? "";
const chunks = (updates: SessionNotification[], sessionId: string, kind = "agent_message_chunk") =>
  updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind).map(textOf);
const ids = (sessions: StoredSession[]) => sessions.map((s) => s.sessionId);

/** Registers the contract's tests for `subject`. */
export function sessionStoreContract(subject: StoreSubject): void {
  describe(`SessionStore contract: ${subject.name}`, { skip: subject.skip }, () => {
    test("create, get, append in call order (concurrent appends too), update, reopen, delete twice", async () => {
      let store = await subject.open();
      await store.create(session("s1"));
      await Promise.all([
        store.append("s1", [say("a")]),
        store.append("s1", [say("b"), say("c")]),
        store.append("s1", [say("d")]),
      ]);
      await store.update("s1", { title: "Hello", updatedAt: "2025-02-01T00:00:00.000Z" });
      store = await subject.reopen(store);
      assert.deepEqual(await store.history("s1"), [say("a"), say("b"), say("c"), say("d")]);
      const got = await store.get("s1");
      assert.equal(got?.title, "Hello");
      assert.equal(got?.updatedAt, "2025-02-01T00:00:00.000Z");
      assert.equal(got?.cwd, CWD);
      await store.append("s1", [say("e")]);
      assert.equal((await store.history("s1")).length, 5);
      await store.delete("s1");
      await store.delete("s1");
      assert.equal(await store.get("s1"), undefined);
      assert.deepEqual(await store.history("s1"), []);
      assert.deepEqual((await store.list()).sessions, []);
      await store.create(session("s1"));
      assert.deepEqual(await store.history("s1"), [], "a session made again under a deleted id starts empty");
      await store.close?.();
    });

    test("errors: a second create of an id, an append or update to an unknown session; unknown ids read as absent", async () => {
      const store = await subject.open();
      await store.create(session("s1"));
      await assert.rejects(store.create(session("s1")), /already exists/);
      await assert.rejects(store.append("nope", [say("x")]), /does not exist/);
      await assert.rejects(store.update("nope", { title: "x" }), /does not exist/);
      assert.equal(await store.get("nope"), undefined);
      assert.deepEqual(await store.history("nope"), []);
      await store.delete("nope");
      await store.close?.();
    });

    test("records come back exactly: any text, nested data, _meta; values are copied in", async () => {
      let store = await subject.open();
      await store.create(session("s1"));
      const nested = { n: 1, list: [1, 2.5, -3e-7, null, true, "x"], deep: { a: { b: { c: [{}] } } } };
      const records: SessionRecord[] = [
        say('ü é 中文 😀 \u0000 \u0001 \u2028 "quoted" \\ back\nline\r\n'),
        { kind: "data", data: nested },
        { kind: "data", data: "a string" },
        { kind: "data", data: null },
        { ...say("with meta"), _meta: { "acme/x": { y: [1, "z"] } } } as SessionRecord,
        say("x".repeat(1 << 20)),
      ];
      await store.append("s1", records);
      nested.n = 2;
      const created = session("s2");
      await store.create(created);
      created.cwd = "/elsewhere";
      store = await subject.reopen(store);
      const back = await store.history("s1");
      assert.deepEqual(back[1], { kind: "data", data: { ...nested, n: 1 } }, "stored as it was when appended");
      assert.deepEqual(back, [records[0], { kind: "data", data: { ...nested, n: 1 } }, ...records.slice(2)]);
      assert.equal((await store.get("s2"))?.cwd, CWD);
      await store.close?.();
    });

    test("list: newest first, paged by an opaque cursor (keyset), filtered by cwd; an invalid cursor is -32602", async () => {
      const store = await subject.open();
      for (let i = 0; i < 7; i++)
        await store.create(session(`s${i}`, i % 2 === 0 ? "/even" : "/odd", `2025-01-0${i + 1}T00:00:00.000Z`));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
        seen.push(...ids(page.sessions));
        cursor = page.nextCursor;
        if (pages++ === 0) await store.create(session("late", "/even", "2025-01-09T00:00:00.000Z"));
      } while (cursor !== undefined);
      assert.deepEqual(seen, ["s6", "s5", "s4", "s3", "s2", "s1", "s0"], "a session made meanwhile shifts nothing");
      const even = await store.list({ cwd: "/even", limit: 2 });
      assert.deepEqual(ids(even.sessions), ["late", "s6"]);
      const rest = await store.list({ cwd: "/even", cursor: even.nextCursor! });
      assert.deepEqual(ids(rest.sessions), ["s4", "s2", "s0"]);
      assert.equal(rest.nextCursor, undefined);
      assert.deepEqual(ids((await store.list({ cwd: "/none" })).sessions), []);
      // Same time: by id.
      await store.update("s1", { updatedAt: "2025-01-09T00:00:00.000Z" });
      assert.deepEqual(ids((await store.list({ limit: 3 })).sessions), ["late", "s1", "s6"]);
      await assert.rejects(
        store.list({ cursor: "not-a-cursor" }),
        (e) => e instanceof RequestError && e.code === -32602,
      );
      await store.close?.();
    });

    test("list returns what was stored: title, additional directories, meta", async () => {
      let store = await subject.open();
      await store.create({ ...session("s1"), additionalDirectories: ["/work/lib"], meta: { "acme/tag": [1] } });
      await store.update("s1", { title: "Named", additionalDirectories: ["/a", "/b"] });
      store = await subject.reopen(store);
      const [listed] = (await store.list()).sessions;
      assert.deepEqual(listed, {
        ...session("s1"),
        title: "Named",
        additionalDirectories: ["/a", "/b"],
        meta: { "acme/tag": [1] },
      });
      await store.close?.();
    });

    test("a 10,000-update session: appended one by one, read back and replayed by session/load in order", async () => {
      let store = await subject.open();
      await store.create(session("big"));
      await Promise.all(Array.from({ length: 10_000 }, (_, i) => store.append("big", [say(`u${i}`)])));
      store = await subject.reopen(store);
      const history = await store.history("big");
      assert.equal(history.length, 10_000);
      history.forEach((record, i) => assert.deepEqual(record, say(`u${i}`)));
      const harness = await connectToolkit({ store, onPrompt: async () => "end_turn" });
      await harness.client.loadSession({ sessionId: "big", cwd: CWD, mcpServers: [] });
      const replayed = chunks(harness.updates, "big");
      assert.equal(replayed.length, 10_000);
      replayed.forEach((text, i) => assert.equal(text, `u${i}`));
      await store.close?.();
    });

    test("through a toolkit agent: what one connection saw loads on another after a restart; list and delete", async () => {
      const store = await subject.open();
      const first = await connectToolkit({
        store,
        onPrompt: async (turn) => {
          for (let i = 0; i < 50; i++) await turn.say(`${turn.text} ${i}`);
          return "end_turn";
        },
      });
      const { sessionId } = await first.client.newSession({ cwd: CWD, mcpServers: [] });
      await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "one" }] });
      await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "two" }] });
      const saw = chunks(first.updates, sessionId);
      assert.equal(saw.length, 100);
      await first.client.closeSession({ sessionId });
      const reopened = await subject.reopen(store);
      const second = await connectToolkit({ store: reopened, onPrompt: async () => "end_turn" });
      await second.client.loadSession({ sessionId, cwd: CWD, mcpServers: [] });
      assert.deepEqual(chunks(second.updates, sessionId), saw, "every update, in order, once");
      assert.deepEqual(chunks(second.updates, sessionId, "user_message_chunk"), ["one", "two"]);
      const listed = await second.client.listSessions({ cwd: CWD });
      assert.deepEqual(
        listed.sessions.map((s) => s.sessionId),
        [sessionId],
      );
      await second.client.deleteSession({ sessionId });
      assert.equal(await reopened.get(sessionId), undefined);
      await reopened.close?.();
    });

    test("through a toolkit agent: session/fork copies the history so far; the source is untouched", async () => {
      let store = await subject.open();
      const [agentEnd, clientEnd] = createMemoryPair();
      new unstable.AgentSideConnection(
        (conn) =>
          toolkitAgent(conn, {
            store,
            onPrompt: async (turn) => {
              await turn.say(`echo: ${turn.text}`);
              return "end_turn";
            },
          }),
        agentEnd,
      );
      const updates: SessionNotification[] = [];
      const client = new unstable.ClientSideConnection(
        () => ({
          sessionUpdate: (params) => void updates.push(params as SessionNotification),
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        clientEnd,
      );
      await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
      const { sessionId: source } = await client.newSession({ cwd: CWD, mcpServers: [] });
      await client.prompt({ sessionId: source, prompt: [{ type: "text", text: "one" }] });
      const fork = await client.unstable_forkSession({ sessionId: source, cwd: CWD, additionalDirectories: ["/lib"] });
      await client.prompt({ sessionId: fork.sessionId, prompt: [{ type: "text", text: "two" }] });
      await client.closeSession({ sessionId: fork.sessionId });
      await client.closeSession({ sessionId: source });
      store = await subject.reopen(store);
      const said = async (sessionId: string) =>
        (await store.history(sessionId)).flatMap((r) =>
          r.kind === "update" && r.update.sessionUpdate === "agent_message_chunk" ? [textOf(r as never)] : [],
        );
      assert.deepEqual(await said(fork.sessionId), ["echo: one", "echo: two"]);
      assert.deepEqual(await said(source), ["echo: one"]);
      assert.deepEqual((await store.get(fork.sessionId))?.additionalDirectories, ["/lib"]);
      await store.close?.();
    });

    test("session/load skips and reports stored updates that cannot be replayed; the rest is replayed in order", async () => {
      const limit = 4096;
      let store = await subject.open();
      await store.create(session("s1"));
      const bad = { kind: "update", update: { sessionUpdate: "agent_message_chunk", content: { type: "text" } } };
      const image: SessionRecord = {
        kind: "update",
        update: {
          sessionUpdate: "user_message_chunk",
          content: { type: "image", mimeType: "image/png", data: "A".repeat(limit) },
        },
      };
      await store.append("s1", [say("one"), bad as SessionRecord, say("two"), image, say("three")]);
      store = await subject.reopen(store);
      const errors: string[] = [];
      const logger = { debug() {}, info() {}, warn() {}, error: (message: string) => void errors.push(message) };
      const harness = await connectToolkit(
        { store, logger, onPrompt: async () => "end_turn" },
        {},
        {},
        { maxMessageBytes: limit },
      );
      const response = await harness.client.loadSession({ sessionId: "s1", cwd: CWD, mcpServers: [] });
      assert.deepEqual(harness.updates.map(textOf), ["one", "two", "three"]);
      assert.equal(errors.length, 2);
      assert.deepEqual((response?._meta as Record<string, unknown> | undefined)?.["acpkit/replay"], { skipped: 2 });
      await store.close?.();
    });
  });
}
