import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../jsonrpc/index.js";
import { createMemoryPair } from "../transports/memory.js";
import { agent, unstableAgent } from "../agent/agent-app.js";
import { client } from "./client-app.js";
import { demoAgent, demoClient, initializeParams } from "./testing/demo-apps.js";

test("initialize, session/new and a prompt that streams 100 chunks: readText returns them all", async () => {
  const { app } = demoClient();
  const text = await app.connectWith(demoAgent(), async (agentCtx) => {
    const init = await agentCtx.request("initialize", initializeParams);
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentCapabilities?.loadSession, true);
    const session = await agentCtx.buildSession("/work").start();
    assert.equal(session.sessionId, "session-1");
    assert.equal(session.modes?.currentModeId, "ask");
    assert.deepEqual(session.meta, { demo: true });
    assert.equal(session.newSessionResponse.sessionId, "session-1");
    const first = await session.nextUpdate(); // sent before the session/new response
    assert.equal(first.kind === "session_update" && first.update.sessionUpdate, "available_commands_update");
    const [response, streamed] = await Promise.all([session.prompt("stream 100"), session.readText()]);
    assert.equal(response.stopReason, "end_turn");
    session.dispose();
    return streamed;
  });
  assert.equal(text, Array.from({ length: 100 }, (_, i) => `${i} `).join(""));
});

test("a permission request round trip, and fs reads and writes, reach the client's handlers", async () => {
  const { app, log } = demoClient();
  await app.connectWith(demoAgent(), async (agentCtx) => {
    await agentCtx.request("initialize", initializeParams);
    await agentCtx.buildSession("/work").withSession(async (session) => {
      await session.nextUpdate();
      void session.prompt("permission");
      assert.equal(await session.readText(), "yes");
      void session.prompt("fs");
      assert.equal(await session.readText(), "hello fs");
    });
  });
  assert.deepEqual(log.permissions, ["call-1"]);
  assert.equal(log.files.get("/work/out.txt"), "HELLO FS");
});

test("a terminal's whole life through createTerminal and the handle's methods", async () => {
  const { app, log } = demoClient();
  const report = await app.connectWith(demoAgent(), async (agentCtx) => {
    await agentCtx.request("initialize", initializeParams);
    const session = await agentCtx.buildSession("/work").start();
    void session.prompt("terminal");
    return JSON.parse(await session.readText());
  });
  assert.deepEqual(report, { id: "term-1", before: "hi\n", exit: { exitCode: 0 }, after: { exitCode: 0 } });
  assert.deepEqual(log.terminalCalls, [
    "create echo",
    "output term-1",
    "wait term-1",
    "kill term-1",
    "output term-1",
    "release term-1",
  ]);
});

test("session/cancel ends a prompt turn with stopReason cancelled", async () => {
  const { app } = demoClient();
  await app.connectWith(demoAgent(), async (agentCtx) => {
    await agentCtx.request("initialize", initializeParams);
    const session = await agentCtx.buildSession("/work").start();
    const turn = session.prompt("wait");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await agentCtx.notify("session/cancel", { sessionId: session.sessionId });
    assert.equal((await turn).stopReason, "cancelled");
    await session.nextUpdate(); // the commands update sent before session/new's response
    const stop = await session.nextUpdate();
    assert.equal(stop.kind === "stop" && stop.stopReason, "cancelled");
  });
});

test(
  "a cancellationSignal sends $/cancel_request: the agent's " + "signal aborts and the prompt rejects with -32800",
  async () => {
    const { app } = demoClient();
    await app.connectWith(demoAgent(), async (agentCtx) => {
      await agentCtx.request("initialize", initializeParams);
      const session = await agentCtx.buildSession("/work").start();
      await session.nextUpdate();
      const controller = new AbortController();
      const turn = session.prompt("wait", { cancellationSignal: controller.signal });
      setTimeout(() => controller.abort(), 5);
      await assert.rejects(turn, (error: unknown) => error instanceof RequestError && error.code === -32800);
      await assert.rejects(
        session.nextUpdate(),
        (error: unknown) => error instanceof RequestError && error.code === -32800,
      );
      // The next prompt starts clean: the queued error is dropped.
      void session.prompt("stream 2");
      assert.equal(await session.readText(), "0 1 ");
    });
  },
);

test("session/load replays through the client's session/update handler; a void result is answered {}", async () => {
  const seen: string[] = [];
  const app = client().onNotification("session/update", ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text")
      seen.push(params.update.content.text);
  });
  await app.connectWith(demoAgent(), async (agentCtx) => {
    await agentCtx.request("initialize", initializeParams);
    const loaded = await agentCtx.request("session/load", { sessionId: "old-1", cwd: "/work", mcpServers: [] });
    assert.deepEqual(loaded, {});
  });
  assert.deepEqual(seen, ["replayed old-1"]);
});

test("extension methods and notifications go both ways with their parsers", async () => {
  const pings: unknown[] = [];
  const agentApp = agent()
    .onRequest(
      "_acme/ping",
      (raw) => raw as { n: number },
      ({ params, method, requestId }) => ({ pong: params.n + 1, method, requestId }),
    )
    .onNotification("_acme/note", { parse: (raw) => raw as { text: string } }, async ({ params, client }) => {
      await client.notify("_acme/echo", { text: params.text });
    });
  const appClient = client().onNotification(
    "_acme/echo",
    (raw) => raw,
    ({ params }) => void pings.push(params),
  );
  await appClient.connectWith(agentApp, async (agentCtx) => {
    const reply = await agentCtx.request<{ pong: number; method: string; requestId: unknown }>("_acme/ping", { n: 41 });
    assert.equal(reply.pong, 42);
    assert.equal(reply.method, "_acme/ping");
    assert.equal(typeof reply.requestId, "number");
    await agentCtx.notify("_acme/note", { text: "hi" });
    while (pings.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  });
  assert.deepEqual(pings, [{ text: "hi" }]);
});

test("session/close and session/delete treat -32002 as success; other errors still reject", async () => {
  const agentApp = agent()
    .onRequest("session/close", () => {
      throw RequestError.resourceNotFound("session-9");
    })
    .onRequest("session/delete", () => {
      throw RequestError.internalError();
    });
  await client().connectWith(agentApp, async (agentCtx) => {
    assert.deepEqual(await agentCtx.request("session/close", { sessionId: "session-9" }), {});
    await assert.rejects(agentCtx.request("session/delete", { sessionId: "session-9" }), { code: -32603 });
  });
});

test("connect() over streams gives handles with client/agent contexts, peerSupports and tap", async () => {
  const [agentStream, clientStream] = createMemoryPair();
  const agentConnection = demoAgent().connect(agentStream);
  const { app } = demoClient();
  const connection = app.connect(clientStream);
  const seen: string[] = [];
  connection.tap(
    (event) =>
      "message" in event &&
      seen.push(`${event.direction} ${(event.message as { method?: string }).method ?? "response"}`),
  );
  assert.equal(connection.peerSupports("session/load"), false);
  await connection.agent.request("initialize", initializeParams);
  assert.equal(connection.peerSupports("session/load"), true);
  assert.equal(agentConnection.peerSupports("terminal/create"), true);
  assert.deepEqual(seen, ["out initialize", "in response"]);
  connection.close();
  await agentConnection.closed;
  assert.equal(agentConnection.signal.aborted, true);
});

test("unstable apps speak the unstable methods (session/fork), typed by the unstable maps", async () => {
  const agentApp = unstableAgent().onRequest("session/fork", ({ params, client: ctx, requestId }) => {
    assert.equal(ctx.requestId, requestId);
    return { sessionId: `${params.sessionId}-fork` };
  });
  const forked = await client({ unstable: true }).connectWith(agentApp, (ctx) =>
    ctx.request("session/fork", { sessionId: "s1", cwd: "/work", mcpServers: [] }),
  );
  assert.equal(forked.sessionId, "s1-fork");
  // A stable client refuses nothing it does not know: the stable agent answers -32601.
  await assert.rejects(
    client().connectWith(agent(), (ctx) => ctx.request("session/fork", { sessionId: "s1" })),
    (error: unknown) => error instanceof RequestError && error.code === -32601,
  );
});
