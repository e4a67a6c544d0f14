import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentSideConnection } from "../agent-side-connection.js";
import { ClientSideConnection } from "../../client/client-side-connection.js";
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import type { Client } from "../../acp/client-handler.js";
import type { RequestPermissionResponse, SessionNotification } from "../../protocol/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import { MemorySessionStore } from "./memory-session-store.js";
import { diffContent } from "./tool-calls.js";
import { toolkitAgent, type ToolkitAgent, type ToolkitAgentOptions } from "./toolkit-agent.js";

const init = { protocolVersion: 1, clientCapabilities: {} };

function warnings(): Logger & { warned: string[] } {
  const warned: string[] = [];
  return {
    warned,
    debug: () => {},
    info: () => {},
    warn: (m) => warned.push(m),
    error: (m) => warned.push(`error: ${m}`),
  };
}

interface Harness {
  client: ClientSideConnection;
  agent: ToolkitAgent;
  connection: AgentSideConnection;
  updates: SessionNotification[];
  taps: Array<{ direction: string; message: { method?: string } }>;
}

async function connect<S>(options: ToolkitAgentOptions<S>, clientOverrides: Partial<Client> = {}): Promise<Harness> {
  const [agentEnd, clientEnd] = createMemoryPair();
  let agent!: ToolkitAgent;
  const connection = new AgentSideConnection(
    (conn) => (agent = toolkitAgent(conn, options) as ToolkitAgent),
    agentEnd,
    quiet,
  );
  const updates: SessionNotification[] = [];
  const taps: Harness["taps"] = [];
  connection.tap((event) => {
    if ("message" in event) taps.push({ direction: event.direction, message: event.message as { method?: string } });
  });
  const client = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => void updates.push(params),
      requestPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
      ...clientOverrides,
    }),
    clientEnd,
    quiet,
  );
  await client.initialize(init);
  return { client, agent, connection, updates, taps };
}

/** Handlers here fail on purpose: what the connections would log is not the point. */
const quiet = { logger: silentLogger };
const newParams = { cwd: "/work/project", mcpServers: [] };
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("initialize advertises what the manager implements: a store gives load, list, resume, close, delete", async () => {
  const withStore = await connect({ store: new MemorySessionStore(), onPrompt: async () => "end_turn" });
  const caps = (await withStore.client.initialize(init)).agentCapabilities!;
  assert.equal(caps.loadSession, true);
  assert.deepEqual(Object.keys(caps.sessionCapabilities!).sort(), [
    "additionalDirectories",
    "close",
    "delete",
    "list",
    "resume",
  ]);
  const without = await connect({ store: false, onPrompt: async () => "end_turn" });
  const bare = (await without.client.initialize(init)).agentCapabilities!;
  assert.equal(bare.loadSession, false);
  assert.deepEqual(Object.keys(bare.sessionCapabilities!).sort(), ["additionalDirectories", "close"]);
});

test(
  "the defaults advertise no load, list, resume or delete: no store is given, so nothing outlives the " + "connection",
  async () => {
    // An agent on the defaults must pass acp check agent, whose session.load loads a session in a new process: a
    // store in this process's memory could not keep that promise (test/e2e/wire/check-agent-options.test.ts).
    const defaults = await connect({ onPrompt: async () => "end_turn" });
    const caps = (await defaults.client.initialize(init)).agentCapabilities!;
    assert.equal(caps.loadSession, false);
    assert.deepEqual(Object.keys(caps.sessionCapabilities!).sort(), ["additionalDirectories", "close"]);
    const { sessionId } = await defaults.client.newSession(newParams);
    await defaults.client.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] });
    await defaults.client.closeSession({ sessionId });
  },
);

test("relative cwd or additional directories are refused with -32602", async () => {
  const { client } = await connect({ store: new MemorySessionStore(), onPrompt: async () => "end_turn" });
  await assert.rejects(
    client.newSession({ cwd: "project", mcpServers: [] }),
    (e: { code?: number }) => e.code === -32602,
  );
  await assert.rejects(
    client.newSession({ ...newParams, additionalDirectories: ["lib"] }),
    (e: { code?: number }) => e.code === -32602,
  );
  await assert.rejects(client.listSessions({ cwd: "rel" }), (e: { code?: number }) => e.code === -32602);
  const ok = await client.newSession({ ...newParams, additionalDirectories: ["/work/lib", "C:\\lib"] });
  assert.match(ok.sessionId, /^sess_/);
});

test(
  "load replays exactly the updates sent (plus the user's prompt), in order, before answering; resume replays " +
    "nothing",
  async () => {
    const store = new MemorySessionStore();
    const first = await connect({
      store,
      onPrompt: async (turn) => {
        await turn.say("Hello ");
        const call = turn.toolCall({ title: "Edit a.txt", kind: "edit", rawInput: { path: "/work/project/a.txt" } });
        await call.start();
        await call.complete({ content: [diffContent("/work/project/a.txt", "old", "new")], rawOutput: { ok: true } });
        await turn.plan.set(["step one", "step two"]);
        await turn.plan.complete(0);
        await turn.say("done");
        return "end_turn";
      },
    });
    const { sessionId } = await first.client.newSession(newParams);
    assert.deepEqual(
      await first.client.prompt({ sessionId, prompt: [{ type: "text", text: "Fix the bug\nplease" }] }),
      {
        stopReason: "end_turn",
      },
    );
    const seen = first.updates.map((n) => n.update);
    assert.equal(seen[0]!.sessionUpdate, "session_info_update");
    assert.equal((seen[0] as { title?: string }).title, "Fix the bug");

    const second = await connect({ store, onPrompt: async () => "end_turn" });
    let answeredAfter = -1;
    const load = second.client
      .loadSession({ sessionId, ...newParams })
      .then(() => (answeredAfter = second.updates.length));
    await load;
    const replayed = second.updates.map((n) => n.update);
    assert.equal(answeredAfter, replayed.length, "every replayed update arrived before the load response");
    assert.deepEqual(replayed, [
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "Fix the bug\nplease" } },
      ...seen,
    ]);
    assert.ok(second.updates.every((n) => n.sessionId === sessionId));

    const third = await connect({ store, onPrompt: async () => "end_turn" });
    await third.client.resumeSession({ sessionId, cwd: newParams.cwd });
    assert.equal(third.updates.length, 0);
    assert.deepEqual(await third.client.prompt({ sessionId, prompt: [{ type: "text", text: "again" }] }), {
      stopReason: "end_turn",
    });
    await assert.rejects(
      third.client.loadSession({ sessionId: "sess_nope", ...newParams }),
      (e: { code?: number }) => e.code === -32002,
    );
    await assert.rejects(
      third.client.loadSession({ sessionId, cwd: "/elsewhere", mcpServers: [] }),
      (e: { code?: number }) => e.code === -32602,
    );
  },
);

test("list pages with a cursor and filters by cwd; delete removes; close frees", async () => {
  const { client } = await connect({ store: new MemorySessionStore(), onPrompt: async () => "end_turn" });
  const ids: string[] = [];
  for (let i = 0; i < 60; i++)
    ids.push((await client.newSession({ cwd: i % 3 === 0 ? "/a" : "/b", mcpServers: [] })).sessionId);
  const all: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listSessions(cursor === undefined ? {} : { cursor });
    all.push(...page.sessions.map((s) => s.sessionId));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 2);
  assert.deepEqual(all.sort(), [...ids].sort());
  const onlyA = await client.listSessions({ cwd: "/a" });
  assert.equal(onlyA.sessions.length, 20);
  assert.ok(onlyA.sessions.every((s) => s.cwd === "/a"));
  await assert.rejects(client.listSessions({ cursor: "bogus" }), (e: { code?: number }) => e.code === -32602);

  await client.deleteSession({ sessionId: ids[0]! });
  await client.deleteSession({ sessionId: "sess_never" });
  assert.equal((await client.listSessions({ cwd: "/a" })).sessions.length, 19);
  await client.closeSession({ sessionId: ids[1]! });
  await assert.rejects(client.prompt({ sessionId: ids[1]!, prompt: [] }), (e: { code?: number }) => e.code === -32002);
});

test("one turn at a time: a second prompt is refused, or queued when asked", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { client } = await connect({ onPrompt: () => gate.then(() => "end_turn" as const) });
  const { sessionId } = await client.newSession(newParams);
  const running = client.prompt({ sessionId, prompt: [] });
  await assert.rejects(
    client.prompt({ sessionId, prompt: [] }),
    (e: { code?: number; message?: string }) => e.code === -32600,
  );
  release();
  assert.deepEqual(await running, { stopReason: "end_turn" });

  const order: string[] = [];
  const queued = await connect({
    turnPolicy: "queue",
    onPrompt: async (turn) => {
      order.push(`start ${turn.text}`);
      await delay(10);
      order.push(`end ${turn.text}`);
    },
  });
  const s = (await queued.client.newSession(newParams)).sessionId;
  await Promise.all([
    queued.client.prompt({ sessionId: s, prompt: [{ type: "text", text: "1" }] }),
    queued.client.prompt({ sessionId: s, prompt: [{ type: "text", text: "2" }] }),
  ]);
  assert.deepEqual(order, ["start 1", "end 1", "start 2", "end 2"]);
});

test(
  "cancel: the turn answers cancelled fast, its permission " + "request gets $/cancel_request, nothing is sent after",
  async () => {
    const logger = warnings();
    let late!: () => Promise<void>;
    const h = await connect(
      {
        logger,
        onPrompt: async (turn) => {
          await turn.say("working");
          late = () => turn.say("too late");
          const call = turn.toolCall({ title: "rm -rf", kind: "delete" });
          await turn.requestPermission(call);
          return "end_turn";
        },
      },
      { requestPermission: () => new Promise<RequestPermissionResponse>(() => {}) },
    );
    const { sessionId } = await h.client.newSession(newParams);
    const answer = h.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] });
    while (!h.taps.some((t) => t.message.method === "session/request_permission")) await delay(1);
    const started = performance.now();
    await h.client.cancel({ sessionId });
    assert.deepEqual(await answer, { stopReason: "cancelled" });
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 2000, `answered in ${elapsed} ms, not when the pending permission would have ended (never)`);
    assert.ok(h.taps.some((t) => t.direction === "out" && t.message.method === "$/cancel_request"));
    const count = h.updates.length;
    await late();
    await delay(10);
    assert.equal(h.updates.length, count, "no update after the response");
    assert.ok(logger.warned.some((w) => /after its prompt turn was answered/.test(w)));
  },
);

test("cancel of a handler that ignores the signal still answers cancelled within the grace period", async () => {
  const h = await connect({ cancelGraceMs: 20, onPrompt: () => new Promise<never>(() => {}) });
  const { sessionId } = await h.client.newSession(newParams);
  const answer = h.client.prompt({ sessionId, prompt: [] });
  await delay(5);
  const started = performance.now();
  await h.client.cancel({ sessionId });
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  assert.ok(performance.now() - started < 100);
});

test("session/close cancels the running turn, then frees the session", async () => {
  const h = await connect({
    onPrompt: (turn) =>
      new Promise((_, reject) => turn.signal.addEventListener("abort", () => reject(turn.signal.reason))),
  });
  const { sessionId } = await h.client.newSession(newParams);
  const answer = h.client.prompt({ sessionId, prompt: [] });
  await delay(5);
  await h.client.closeSession({ sessionId });
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  await assert.rejects(h.client.prompt({ sessionId, prompt: [] }), (e: { code?: number }) => e.code === -32002);
});

test(
  "permissions: always answers are remembered per session and " + "tool kind; a cancelled outcome ends the turn",
  async () => {
    const asked: string[] = [];
    let answer: RequestPermissionResponse = { outcome: { outcome: "selected", optionId: "allow_always" } };
    const decisions: unknown[] = [];
    const h = await connect(
      {
        onPrompt: async (turn) => {
          for (const kind of ["edit", "edit", "execute"] as const) {
            const call = turn.toolCall({ title: `${kind} something`, kind });
            const decision = await turn.requestPermission(call);
            decisions.push(decision);
            await (decision.allowed ? call.complete() : call.fail("rejected"));
          }
        },
      },
      {
        requestPermission: (params) => {
          asked.push(params.toolCall.kind ?? "other");
          return answer;
        },
      },
    );
    const { sessionId } = await h.client.newSession(newParams);
    assert.deepEqual(await h.client.prompt({ sessionId, prompt: [] }), { stopReason: "end_turn" });
    assert.deepEqual(asked, ["edit", "execute"]);
    assert.deepEqual(decisions[1], { allowed: true, remembered: true });
    answer = { outcome: { outcome: "cancelled" } };
    const other = (await h.client.newSession(newParams)).sessionId;
    assert.deepEqual(await h.client.prompt({ sessionId: other, prompt: [] }), { stopReason: "cancelled" });
    assert.deepEqual(asked, ["edit", "execute", "edit"], "memory is per session");
  },
);

test("a handler error that is not an abort becomes an error response", async () => {
  const h = await connect({
    onPrompt: () => Promise.reject(new Error("boom")),
  });
  const { sessionId } = await h.client.newSession(newParams);
  await assert.rejects(h.client.prompt({ sessionId, prompt: [] }), (e: { code?: number }) => e.code === -32603);
  await assert.rejects(
    h.client.prompt({ sessionId, prompt: [] }),
    (e: { code?: number }) => e.code === -32603,
    "the slot was released",
  );
});
