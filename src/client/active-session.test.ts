import assert from "node:assert/strict";
import { test } from "node:test";
import { ConnectionClosedError, LINK, type AnyMessage, type MessageLink } from "../jsonrpc/index.js";
import { createMemoryPair } from "../transports/memory.js";
import { agent } from "../agent/agent-app.js";
import { client } from "./client-app.js";
import type { ActiveSessionMessage } from "./active-session.js";
import { demoAgent, initializeParams } from "./testing/demo-apps.js";

function describe(message: ActiveSessionMessage): string {
  if (message.kind === "stop") return `stop ${message.stopReason}`;
  const update = message.update as { sessionUpdate: string; content?: { text?: string } };
  return update.content?.text ?? update.sessionUpdate;
}

/** A hand-driven agent on a raw link: `script` answers each request by sending messages itself. */
function rawAgent(
  script: (request: { id: number; method: string; params: any }, send: (message: AnyMessage) => void) => void,
) {
  const [agentEnd, clientEnd] = createMemoryPair();
  const link = agentEnd[LINK] as MessageLink;
  link.start({
    message: (value) => {
      const message = value as { id?: number; method?: string; params?: unknown };
      if (message.id !== undefined && message.method !== undefined) script(message as never, (out) => link.send(out));
    },
    problem: () => {},
    closed: () => {},
  });
  return clientEnd;
}

const chunk = (sessionId: string, text: string): AnyMessage => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
});

test(
  "updates sent before the session/new response are kept for the session that claims them, also with two starts " +
    "at once",
  async () => {
    const stream = rawAgent((request, send) => {
      if (request.method !== "session/new") return;
      const sessionId = request.params.cwd === "/a" ? "A" : "B";
      send(chunk(sessionId, `${sessionId}1`));
      send(chunk(sessionId, `${sessionId}2`));
      send(chunk("nobody", "dropped"));
      setTimeout(() => send({ jsonrpc: "2.0", id: request.id, result: { sessionId } }), sessionId === "A" ? 5 : 1);
    });
    const connection = client().connect(stream);
    const [a, b] = await Promise.all([
      connection.agent.buildSession("/a").start(),
      connection.agent.buildSession("/b").start(),
    ]);
    assert.deepEqual([describe(await a.nextUpdate()), describe(await a.nextUpdate())], ["A1", "A2"]);
    assert.deepEqual([describe(await b.nextUpdate()), describe(await b.nextUpdate())], ["B1", "B2"]);
    connection.close();
  },
);

test("the stop takes the place its response arrived at: updates sent after the response follow it", async () => {
  const stream = rawAgent((request, send) => {
    if (request.method === "session/new") return send({ jsonrpc: "2.0", id: request.id, result: { sessionId: "S" } });
    send(chunk("S", "before"));
    send({ jsonrpc: "2.0", id: request.id, result: { stopReason: "end_turn" } });
    send(chunk("S", "after")); // same turn as the response: delivered in the same batch
  });
  const connection = client().connect(stream);
  const session = await connection.agent.buildSession("/").start();
  await session.prompt("go");
  const seen = [
    describe(await session.nextUpdate()),
    describe(await session.nextUpdate()),
    describe(await session.nextUpdate()),
  ];
  assert.deepEqual(seen, ["before", "stop end_turn", "after"]);
  connection.close();
});

test("an agent that keeps streaming after the prompt response: the late updates are queued", async () => {
  await client().connectWith(demoAgent(), async (ctx) => {
    await ctx.request("initialize", initializeParams);
    const session = await ctx.buildSession("/work").start();
    await session.nextUpdate();
    void session.prompt("late 3");
    assert.equal(await session.readText(), "");
    const late = [await session.nextUpdate(), await session.nextUpdate(), await session.nextUpdate()].map(describe);
    assert.deepEqual(late, ["late 0", "late 1", "late 2"]);
  });
});

test("update kinds this version does not know are delivered by nextUpdate", async () => {
  await client().connectWith(demoAgent({ validateOutgoing: false }), async (ctx) => {
    await ctx.request("initialize", initializeParams);
    const session = await ctx.buildSession("/work").start();
    await session.nextUpdate();
    void session.prompt("unknown");
    const unknown = await session.nextUpdate();
    assert.equal(unknown.kind, "session_update");
    assert.deepEqual(unknown.kind === "session_update" && unknown.update, {
      sessionUpdate: "future_update",
      detail: 42,
    });
    assert.equal(await session.readText(), "known");
  });
});

test("dispose stops routing; closing the connection fails waiting nextUpdate calls with the close reason", async () => {
  const stream = rawAgent((request, send) => {
    if (request.method === "session/new")
      send({ jsonrpc: "2.0", id: request.id, result: { sessionId: request.params.cwd } });
  });
  const connection = client().connect(stream);
  const one = await connection.agent.buildSession("one").start();
  const two = await connection.agent.buildSession("two").start();
  one.dispose();
  await assert.rejects(one.nextUpdate(), /Active session disposed/);
  const waiting = two.nextUpdate();
  connection.close(new Error("user quit"));
  await assert.rejects(
    waiting,
    (error: unknown) => error instanceof ConnectionClosedError && /user quit/.test(error.message),
  );
  await assert.rejects(two.nextUpdate(), ConnectionClosedError);
});

test("updates queued before a close are still read before the close reason", async () => {
  const app = agent().onRequest("session/new", async ({ client: ctx }) => {
    await ctx.notify("session/update", {
      sessionId: "K",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "kept" } },
    });
    return { sessionId: "K" };
  });
  const connection = client().connect(app);
  const session = await connection.agent.buildSession("/").start();
  connection.close();
  assert.equal(describe(await session.nextUpdate()), "kept");
  await assert.rejects(session.nextUpdate(), ConnectionClosedError);
});

test("SessionBuilder builds the session/new request and hands out copies", async () => {
  const connection = client().connect(createMemoryPair()[0]);
  const builder = connection.agent
    .buildSession("/work")
    .withAdditionalDirectories(["/lib"])
    .withMcpServer({ name: "files", command: "mcp-files", args: [], env: [] });
  const request = builder.toRequest();
  assert.deepEqual(request, {
    cwd: "/work",
    mcpServers: [{ name: "files", command: "mcp-files", args: [], env: [] }],
    additionalDirectories: ["/lib"],
  });
  request.mcpServers.length = 0;
  assert.equal(builder.toRequest().mcpServers.length, 1);
  connection.close();
});

test("a client's notification fallback still sees session/update when an ActiveSession routes it", async () => {
  const seen: string[] = [];
  const app = client().onNotification("*", ({ method }) => void seen.push(method));
  await app.connectWith(demoAgent(), async (ctx) => {
    await ctx.request("initialize", initializeParams);
    const session = await ctx.buildSession("/work").start();
    void session.prompt("stream 2");
    assert.equal(await session.readText(), "0 1 ");
  });
  assert.deepEqual(seen, ["session/update", "session/update", "session/update"]);
});
