import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestError } from "../../jsonrpc/index.js";
import type { Client } from "../../acp/client-handler.js";
import type { SessionNotification } from "../../protocol/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import * as unstable from "../../entries/unstable.js";
import { parseCommand } from "./commands.js";
import type { McpConnector } from "./mcp-connector.js";
import { MemorySessionStore } from "./memory-session-store.js";
import { connectToolkit, until } from "./testing/harness.js";
import { toolkitAgent, type ToolkitAgent, type ToolkitAgentOptions } from "./toolkit-agent.js";

const newParams = { cwd: "/work/project", mcpServers: [] };
const init = { protocolVersion: 1, clientCapabilities: {} };
const isCode = (code: number) => (e: RequestError) => e.code === code;

interface UnstableHarness {
  client: unstable.ClientSideConnection;
  agent: ToolkitAgent;
  updates: SessionNotification[];
}

/** A `toolkitAgent` behind `@acpkit/sdk/unstable`'s `AgentSideConnection`, with the unstable client. */
async function connectUnstable(
  options: ToolkitAgentOptions<unknown>,
  clientOverrides: Partial<Client> = {},
): Promise<UnstableHarness> {
  const [agentEnd, clientEnd] = createMemoryPair();
  let agent!: ToolkitAgent;
  new unstable.AgentSideConnection((conn) => (agent = toolkitAgent(conn, options)), agentEnd);
  const updates: SessionNotification[] = [];
  const client = new unstable.ClientSideConnection(
    () => ({
      sessionUpdate: (params) => void updates.push(params as SessionNotification),
      requestPermission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
      ...clientOverrides,
    }),
    clientEnd,
  );
  await client.initialize(init);
  return { client, agent, updates };
}

/** Says back the prompt's text ("echo: <text>"); `/mode <id>` switches mode. */
function echoing(extra: Partial<ToolkitAgentOptions<unknown>> = {}): ToolkitAgentOptions<unknown> {
  return {
    onPrompt: async (turn) => {
      const command = parseCommand(turn.text);
      if (command?.name === "mode") await turn.session.settings!.setMode(command.args);
      else await turn.say(`echo: ${turn.text}`);
      return "end_turn";
    },
    ...extra,
  };
}

const prompt = (sessionId: string, text: string) => ({ sessionId, prompt: [{ type: "text" as const, text }] });
const texts = (updates: SessionNotification[], sessionId: string) =>
  updates
    .filter((n) => n.sessionId === sessionId)
    .map((n) => n.update)
    .flatMap((u) =>
      (u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "user_message_chunk") &&
      u.content.type === "text"
        ? [`${u.sessionUpdate}:${u.content.text}`]
        : [],
    );

test(
  "sessionCapabilities.fork is advertised (and session/fork " + "routed) only on the unstable protocol, with a store",
  async () => {
    const onUnstable = await connectUnstable(echoing({ store: new MemorySessionStore() }));
    const caps = (await onUnstable.client.initialize(init)).agentCapabilities!;
    assert.deepEqual((caps.sessionCapabilities as { fork?: unknown }).fork, {});
    assert.equal(typeof onUnstable.agent.unstable_forkSession, "function");

    const onStable = await connectToolkit(echoing({ store: new MemorySessionStore() }));
    const stableCaps = (await onStable.client.initialize(init)).agentCapabilities!;
    assert.equal("fork" in stableCaps.sessionCapabilities!, false);
    assert.equal(onStable.agent.unstable_forkSession, undefined);
    const { sessionId } = await onStable.client.newSession(newParams);
    await assert.rejects(
      onStable.client.connection.request("session/fork", { sessionId, cwd: newParams.cwd }),
      isCode(-32601),
    );

    for (const options of [{ store: false as const }, {}]) {
      const storeless = await connectUnstable(echoing(options));
      const storelessCaps = (await storeless.client.initialize(init)).agentCapabilities!;
      assert.equal(
        "fork" in storelessCaps.sessionCapabilities!,
        false,
        "a fork copies stored history: no store, no fork",
      );
      assert.equal(storeless.agent.unstable_forkSession, undefined);
    }

    const forced = await connectUnstable(echoing({ unstable: false, store: new MemorySessionStore() }));
    assert.equal(
      "fork" in (await forced.client.initialize(init)).agentCapabilities!.sessionCapabilities!,
      false,
      "the option overrides detection",
    );
  },
);

test("a fork copies the source's history (loading it replays the source's updates), then diverges", async () => {
  const store = new MemorySessionStore();
  const h = await connectUnstable(echoing({ store }));
  const { sessionId: source } = await h.client.newSession(newParams);
  await h.client.prompt(prompt(source, "first"));
  await h.agent.sessions.get(source).flush();
  const sourceHistory = await store.history(source);

  const forked = await h.client.unstable_forkSession({
    sessionId: source,
    cwd: "/work/other",
    additionalDirectories: ["/work/lib"],
    mcpServers: [],
  });
  assert.notEqual(forked.sessionId, source);
  assert.match(forked.sessionId, /^sess_/);
  assert.deepEqual(
    await store.history(forked.sessionId),
    sourceHistory,
    "the fork's history is a copy of the source's",
  );
  assert.equal(h.updates.filter((n) => n.sessionId === forked.sessionId).length, 0, "a fork replays nothing");
  const stored = (await store.get(forked.sessionId))!;
  assert.equal(stored.cwd, "/work/other", "the fork takes the request's cwd");
  assert.deepEqual(stored.additionalDirectories, ["/work/lib"], "and its roots, never the source's");
  assert.equal(stored.title, "first", "the source's title carries over");
  assert.equal(h.agent.sessions.get(forked.sessionId).cwd, "/work/other");

  await h.client.prompt(prompt(forked.sessionId, "only in the fork"));
  await h.client.prompt(prompt(source, "only in the source"));
  await h.agent.sessions.get(forked.sessionId).flush();
  await h.agent.sessions.get(source).flush();

  const other = await connectUnstable(echoing({ store }));
  await other.client.loadSession({ sessionId: forked.sessionId, cwd: "/work/other", mcpServers: [] });
  assert.deepEqual(texts(other.updates, forked.sessionId), [
    "user_message_chunk:first",
    "agent_message_chunk:echo: first",
    "user_message_chunk:only in the fork",
    "agent_message_chunk:echo: only in the fork",
  ]);
  await other.client.loadSession({ sessionId: source, ...newParams });
  assert.deepEqual(texts(other.updates, source), [
    "user_message_chunk:first",
    "agent_message_chunk:echo: first",
    "user_message_chunk:only in the source",
    "agent_message_chunk:echo: only in the source",
  ]);
  const listed = await other.client.listSessions({});
  assert.deepEqual(listed.sessions.map((s) => s.sessionId).sort(), [forked.sessionId, source].sort());
});

test(
  "a stored (not live) session can be forked; onSessionReady and createState see origin fork and the copied " +
    "history",
  async () => {
    const store = new MemorySessionStore();
    const first = await connectUnstable(echoing({ store }));
    const { sessionId: source } = await first.client.newSession(newParams);
    await first.client.prompt(prompt(source, "hello"));
    await first.agent.sessions.get(source).flush();

    const seen: string[] = [];
    const second = await connectUnstable(
      echoing({
        store,
        createState: ({ origin, history }) => void seen.push(`state:${origin}:${history.length}`),
        onSessionReady: (_session, origin) => void seen.push(`ready:${origin}`),
      }),
    );
    const forked = await second.client.unstable_forkSession({ sessionId: source, cwd: newParams.cwd });
    const length = (await store.history(source)).length;
    assert.ok(length >= 2);
    assert.deepEqual(seen, [`state:fork:${length}`, "ready:fork"]);
    assert.equal(
      second.agent.sessions.get(forked.sessionId).sessionId,
      forked.sessionId,
      "the fork is live on this connection",
    );
  },
);

test(
  "fork errors: unknown source -32002, relative cwd or roots " + "-32602 (checked before the source is looked up)",
  async () => {
    const h = await connectUnstable(echoing({ store: new MemorySessionStore() }));
    await assert.rejects(
      h.client.unstable_forkSession({ sessionId: "sess_unknown", cwd: newParams.cwd }),
      isCode(-32002),
    );
    const { sessionId } = await h.client.newSession(newParams);
    await assert.rejects(h.client.unstable_forkSession({ sessionId, cwd: "project" }), isCode(-32602));
    await assert.rejects(h.client.unstable_forkSession({ sessionId: "sess_unknown", cwd: "project" }), isCode(-32602));
    await assert.rejects(
      h.client.unstable_forkSession({ sessionId, cwd: newParams.cwd, additionalDirectories: ["lib"] }),
      isCode(-32602),
    );
    assert.equal(h.agent.sessions.sessions.length, 1, "no session was created by a refused fork");
  },
);

test(
  "a fork while a turn runs in the source copies the history " + "recorded so far; the source's turn goes on",
  async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const store = new MemorySessionStore();
    const h = await connectUnstable({
      store,
      onPrompt: async (turn) => {
        await turn.say("before the fork");
        await gate;
        await turn.say("after the fork");
        return "end_turn";
      },
    });
    const { sessionId: source } = await h.client.newSession(newParams);
    const running = h.client.prompt(prompt(source, "go"));
    await until(
      () => texts(h.updates, source).includes("agent_message_chunk:before the fork"),
      2000,
      "the first chunk",
    );

    const forked = await h.client.unstable_forkSession({ sessionId: source, cwd: newParams.cwd });
    release();
    assert.equal((await running).stopReason, "end_turn");
    await h.agent.sessions.get(source).flush();

    const copied = await store.history(forked.sessionId);
    const said = (records: typeof copied) =>
      records.flatMap((r) =>
        r.kind === "update" && r.update.sessionUpdate === "agent_message_chunk" && r.update.content.type === "text"
          ? [r.update.content.text]
          : [],
      );
    assert.deepEqual(said(copied), ["before the fork"]);
    assert.deepEqual(said(await store.history(source)), ["before the fork", "after the fork"]);
  },
);

test("a fork carries the source's mode and config values over, and answers them like session/new", async () => {
  const store = new MemorySessionStore();
  const h = await connectUnstable(
    echoing({
      store,
      modes: [
        { id: "ask", name: "Ask" },
        { id: "code", name: "Code" },
      ],
      configOptions: [
        {
          id: "model",
          name: "Model",
          category: "model",
          type: "select",
          currentValue: "small",
          options: [
            { value: "small", name: "Small" },
            { value: "large", name: "Large" },
          ],
        },
      ],
    }),
  );
  const { sessionId: source } = await h.client.newSession(newParams);
  await h.client.setSessionMode({ sessionId: source, modeId: "code" });
  await h.client.setSessionConfigOption({ sessionId: source, configId: "model", value: "large" });
  const forked = await h.client.unstable_forkSession({ sessionId: source, cwd: newParams.cwd });
  assert.equal(forked.modes!.currentModeId, "code");
  assert.equal(forked.configOptions!.find((o) => o.id === "model")!.currentValue, "large");
  assert.equal(h.agent.sessions.get(forked.sessionId).settings!.modeId, "code");

  await h.client.setSessionMode({ sessionId: forked.sessionId, modeId: "ask" });
  assert.equal(h.agent.sessions.get(source).settings!.modeId, "code", "a change in the fork leaves the source alone");
});

test(
  "a fork connects the MCP servers its request names, as " + "session/new does, and closes them with the fork",
  async () => {
    const connected: Array<{ sessionId: string; cwd: string; names: string[] }> = [];
    let closed = 0;
    const mcp: McpConnector = {
      capabilities: {},
      connect: (servers, context) => {
        connected.push({ sessionId: context.sessionId, cwd: context.cwd, names: servers.map((s) => s.name) });
        return Promise.resolve({
          servers: [],
          tools: () => [],
          callTool: () => Promise.reject(new Error("none")),
          close: () => Promise.resolve(void closed++),
        });
      },
    };
    const h = await connectUnstable(echoing({ mcp, store: new MemorySessionStore() }));
    const { sessionId: source } = await h.client.newSession(newParams);
    const server = { name: "files", command: "/bin/true", args: [], env: [] };
    const forked = await h.client.unstable_forkSession({ sessionId: source, cwd: "/work/fork", mcpServers: [server] });
    assert.deepEqual(connected, [
      { sessionId: source, cwd: newParams.cwd, names: [] },
      { sessionId: forked.sessionId, cwd: "/work/fork", names: ["files"] },
    ]);
    assert.ok(h.agent.sessions.get(forked.sessionId).mcp !== undefined);
    await h.client.closeSession({ sessionId: forked.sessionId });
    assert.equal(closed, 1);
  },
);
