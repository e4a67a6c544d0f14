import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk/experimental/v2";
import { ConnectionClosedError, ProtocolVersionError, RequestError } from "../../jsonrpc/index.js";
import { wirePeer, type WirePeer } from "../../acp/v2/testing/wire-peer.js";
import { agent } from "../../agent/v2/agent-app.js";
import { client } from "./client-app.js";

const info = { name: "test-client", version: "1.0.0" };
const agentInfo = { name: "test-agent", version: "2.0.0" };
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const isCode = (code: number, pattern?: RegExp) => (error: unknown) =>
  error instanceof RequestError && error.code === code && (pattern === undefined || pattern.test(error.message));

/** Reads the client's next request off the wire and answers it with `reply` (a result, or `{ error }`). */
async function answerNext(peer: WirePeer, reply: unknown): Promise<Record<string, unknown>> {
  const request = await peer.next();
  const isError = typeof reply === "object" && reply !== null && "error" in reply;
  await peer.send({ jsonrpc: "2.0", id: request.id, ...(isError ? (reply as object) : { result: reply }) });
  return request;
}

const v2Result = { protocolVersion: 2, info: agentInfo, capabilities: { session: {} } };

test("before initialize: requests and notifications reject -32600 naming the method, and nothing is sent", async () => {
  const peer = wirePeer();
  const connection = client().connect(peer.stream);
  await assert.rejects(
    connection.agent.request("session/new", { cwd: "/w", mcpServers: [] }),
    isCode(-32600, /initialized before 'session\/new'/),
  );
  await assert.rejects(
    connection.agent.notify("session/cancel", { sessionId: "s" }),
    isCode(-32600, /'session\/cancel'/),
  );
  const initializing = connection.agent.request("initialize", { protocolVersion: 2, info });
  assert.equal((await peer.next()).method, "initialize", "the first message on the wire is initialize");
  connection.close();
  await assert.rejects(initializing, ConnectionClosedError);
});

test(
  "initialize goes out with protocolVersion 2 whatever was " + "passed; the snapshot holds the parsed exchange",
  async () => {
    const peer = wirePeer();
    const connection = client().connect(peer.stream);
    const result = connection.agent.request("initialize", { protocolVersion: 1, info, _meta: { trace: "x" } });
    const sent = await answerNext(peer, v2Result);
    assert.deepEqual(sent.params, { protocolVersion: 2, info, _meta: { trace: "x" } });
    assert.deepEqual(await result, v2Result);
    assert.deepEqual(await connection.initialized, {
      request: { protocolVersion: 2, info, capabilities: {}, _meta: { trace: "x" } },
      response: v2Result,
    });
    assert.equal(connection.peerSupports("session/new"), true);
    connection.close();
  },
);

test("an agent answering protocolVersion 1: ProtocolVersionError, and the connection closes with it", async () => {
  const peer = wirePeer();
  const connection = client().connect(peer.stream);
  const result = connection.agent.request("initialize", { protocolVersion: 2, info });
  const waiting = connection.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  await answerNext(peer, { protocolVersion: 1, agentCapabilities: {} });
  await assert.rejects(
    result,
    (error: unknown) => error instanceof ProtocolVersionError && error.requested === 2 && error.received === 1,
  );
  await assert.rejects(connection.initialized, ProtocolVersionError);
  await assert.rejects(waiting);
  await connection.closed;
  assert.ok(connection.signal.aborted);
  assert.ok((connection.signal.reason as Error).cause instanceof ProtocolVersionError, "closed with it");
  assert.throws(
    () => connection.agent.request("initialize", { protocolVersion: 2, info }),
    isCode(-32600, /initialization failed/),
  );
});

test("an error answer (or a timeout) leaves the connection uninitialized: initialize may be sent again", async () => {
  const peer = wirePeer();
  const connection = client().connect(peer.stream);
  const first = connection.agent.request("initialize", { protocolVersion: 2, info });
  const waiting = connection.agent.request("session/new", { cwd: "/w", mcpServers: [] });
  await answerNext(peer, { error: { code: -32000, message: "Authentication required" } });
  await assert.rejects(first, isCode(-32000));
  await assert.rejects(waiting, isCode(-32600), "requests waiting on it are refused");
  const timedOut = connection.agent.request("initialize", { protocolVersion: 2, info }, { timeoutMs: 1 });
  const unanswered = await peer.next();
  await assert.rejects(timedOut, (error: unknown) => error instanceof Error && error.name === "RequestTimeoutError");
  assert.deepEqual(await peer.next(), {
    jsonrpc: "2.0",
    method: "$/cancel_request",
    params: { requestId: unanswered.id },
  });
  assert.equal(connection.signal.aborted, false);
  const third = connection.agent.request("initialize", { protocolVersion: 2, info });
  await answerNext(peer, v2Result);
  assert.deepEqual(await third, v2Result);
  connection.close();
});

test(
  "repeat rules: a second initialize throws -32600 synchronously " + "while one runs, and after any other request",
  async () => {
    const peer = wirePeer();
    const connection = client().connect(peer.stream);
    const first = connection.agent.request("initialize", { protocolVersion: 2, info });
    assert.throws(
      () => connection.agent.request("initialize", { protocolVersion: 2, info }),
      isCode(-32600, /already in progress/),
    );
    await answerNext(peer, { ...v2Result, capabilities: { session: { delete: {} } } });
    await first;
    assert.equal(connection.peerSupports("session/delete"), true);
    const repeat = connection.agent.request("initialize", {
      protocolVersion: 2,
      info: { name: "again", version: "2" },
    });
    await answerNext(peer, { error: { code: -32603, message: "no" } });
    await assert.rejects(repeat, isCode(-32603));
    const unusable = connection.agent.request("initialize", { protocolVersion: 2, info });
    await answerNext(peer, { protocolVersion: 1 });
    await assert.rejects(unusable, ProtocolVersionError);
    assert.equal(connection.signal.aborted, false, "a failed repeat keeps the previous exchange: the connection stays");
    assert.equal(connection.peerSupports("session/delete"), true, "and its capabilities");
    assert.deepEqual((await connection.initialized).request.info, info);
    const session = connection.agent.request("session/new", { cwd: "/w", mcpServers: [] });
    assert.throws(
      () => connection.agent.request("initialize", { protocolVersion: 2, info }),
      isCode(-32600, /after other requests/),
    );
    await answerNext(peer, { sessionId: "s1" });
    assert.deepEqual(await session, { sessionId: "s1" });
    connection.close();
  },
);

test("calls made while initialize runs go out in the order they were made, before any made after it", async () => {
  const peer = wirePeer();
  const connection = client().connect(peer.stream);
  const init = connection.agent.request("initialize", { protocolVersion: 2, info });
  const request = await peer.next();
  void connection.agent.notify("session/cancel", { sessionId: "made during" });
  void connection.agent.request("session/list", {}).catch(() => undefined);
  await peer.send({ jsonrpc: "2.0", id: request.id, result: v2Result });
  await init;
  void connection.agent.notify("session/cancel", { sessionId: "made after" });
  const sent = [await peer.next(), await peer.next(), await peer.next()];
  assert.deepEqual(
    sent.map((message) => (message.params as { sessionId?: string }).sessionId ?? message.method),
    ["made during", "session/list", "made after"],
  );
  connection.close();
});

test(
  "session/close and session/delete answered -32002 resolve {}; " + "other errors and other methods still reject",
  async () => {
    const peer = wirePeer();
    const connection = client().connect(peer.stream);
    const init = connection.agent.request("initialize", { protocolVersion: 2, info });
    await answerNext(peer, { ...v2Result, capabilities: { session: { delete: {} } } });
    await init;
    const gone = { error: { code: -32002, message: "Resource not found", data: { sessionId: "s" } } };
    for (const method of ["session/close", "session/delete"] as const) {
      const closing = connection.agent.request(method, { sessionId: "s" });
      await answerNext(peer, gone);
      assert.deepEqual(await closing, {});
      const failing = connection.agent.request(method, { sessionId: "s" });
      await answerNext(peer, { error: { code: -32603, message: "broken" } });
      await assert.rejects(failing, isCode(-32603));
    }
    const prompt = connection.agent.request("session/prompt", {
      sessionId: "s",
      prompt: [{ type: "text", text: "hi" }],
    });
    await answerNext(peer, gone);
    await assert.rejects(prompt, isCode(-32002));
    connection.close();
  },
);

test(
  "the agent's requests: -32600 before initialize, held while it runs (served after, refused if it fails); ids " +
    "checked",
  async () => {
    const served: string[] = [];
    const app = client().onRequest("session/request_permission", ({ params }) => {
      served.push(params.title);
      return { outcome: { outcome: "cancelled" } };
    });
    const permission = (id: unknown, title: string) => ({
      jsonrpc: "2.0",
      id,
      method: "session/request_permission",
      params: { sessionId: "s", title, options: [{ optionId: "ok", name: "OK", kind: "allow_once" }] },
    });
    const peer = wirePeer();
    const connection = app.connect(peer.stream);
    await peer.send(permission("early", "early"));
    const early = await peer.next();
    assert.deepEqual([early.id, (early.error as { code: number }).code], ["early", -32600]);
    const first = connection.agent.request("initialize", { protocolVersion: 2, info });
    const firstInit = await peer.next();
    await peer.send(permission("during-failed", "during failed"));
    await peer.send({ jsonrpc: "2.0", id: firstInit.id, error: { code: -32000, message: "auth" } });
    await assert.rejects(first);
    const refused = await peer.next();
    assert.deepEqual([refused.id, (refused.error as { code: number }).code], ["during-failed", -32600]);
    const second = connection.agent.request("initialize", { protocolVersion: 2, info });
    const secondInit = await peer.next();
    await peer.send(permission("during-ok", "during ok"));
    await tick();
    assert.deepEqual(served, [], "held while initialize runs");
    await peer.send({ jsonrpc: "2.0", id: secondInit.id, result: v2Result });
    await second;
    const servedAnswer = await peer.next();
    assert.deepEqual(servedAnswer, { jsonrpc: "2.0", id: "during-ok", result: { outcome: { outcome: "cancelled" } } });
    await peer.send(permission(1.5, "fractional"));
    const fractional = await peer.next();
    assert.deepEqual([fractional.id, (fractional.error as { code: number }).code], [null, -32600]);
    assert.deepEqual(served, ["during ok"]);
    connection.close();
  },
);

test("the agent's notifications: ignored before initialize, held while it runs, delivered after", async () => {
  const seen: string[] = [];
  const app = client().onNotification("session/update", ({ params }) => void seen.push(params.sessionId));
  const update = (sessionId: string) => ({
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", messageId: "m", content: { type: "text", text: "x" } },
    },
  });
  const peer = wirePeer();
  const connection = app.connect(peer.stream);
  await peer.send(update("before"));
  const init = connection.agent.request("initialize", { protocolVersion: 2, info });
  const request = await peer.next();
  await peer.send(update("during"));
  await tick();
  assert.equal(seen.length, 0, "held");
  void init.then(() => seen.push("initialize answered"));
  await peer.send({ jsonrpc: "2.0", id: request.id, result: v2Result });
  await peer.send(update("after"));
  await init;
  await tick();
  assert.deepEqual(seen, ["during", "initialize answered", "after"], "held ones first, before the response resolves");
  connection.close();
});

test("direction and registration: v2 agent methods only, a parser for a built-in method refused", () => {
  const connection = client().connect(wirePeer().stream);
  assert.throws(
    () => connection.agent.request("session/request_permission" as "_x", {}),
    /not valid in this direction/,
  );
  assert.throws(() => connection.agent.notify("session/update" as "_x", {}), TypeError);
  assert.throws(
    () =>
      client().onRequest(
        "session/request_permission" as "_x",
        (raw) => raw,
        () => ({}),
      ),
    /register it without a parser/,
  );
  assert.throws(
    () =>
      client().onRequest(
        "session/new" as "_x",
        (raw) => raw,
        () => ({}),
      ),
    /the agent handles, not the client/,
  );
  assert.throws(() => client().connect(client() as never), /only connect to an app of the other side/);
  connection.close();
});

test("the same client flow against acpkit's and the official agent: initialize, session, prompt, updates", async () => {
  for (const make of [() => agent(), () => official.agent() as unknown as ReturnType<typeof agent>]) {
    const app = make()
      .onRequest("initialize", () => ({ protocolVersion: 2, info: agentInfo, capabilities: { session: {} } }))
      .onRequest("session/new", () => ({ sessionId: "s1", configOptions: [] }))
      .onRequest("session/prompt", async ({ params, client: peer }) => {
        const text = (params.prompt[0] as { text: string }).text;
        await peer.notify("session/update", {
          sessionId: "s1",
          update: {
            sessionUpdate: "agent_message_chunk",
            messageId: "m1",
            content: { type: "text", text: `echo ${text}` },
          },
        });
        await peer.notify("session/update", {
          sessionId: "s1",
          update: { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
        });
        return { messageId: "u1" };
      });
    const toAgent = new TransformStream();
    const toClient = new TransformStream();
    app.connect({ readable: toAgent.readable, writable: toClient.writable });
    const text = await client().connectWith(
      { readable: toClient.readable, writable: toAgent.writable },
      async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 2, info });
        return ctx.buildSession("/work").withSession(async (session) => {
          assert.deepEqual(await session.prompt("hello"), { messageId: "u1" });
          return session.readTextUntilIdle();
        });
      },
    );
    assert.equal(text, "echo hello");
  }
});

test(
  "an agent that advertises no capabilities.session supports no session method: peerSupports says so, " +
    "enforceCapabilities refuses locally",
  async () => {
    const peer = wirePeer();
    const connection = client({ enforceCapabilities: true }).connect(peer.stream);
    const result = connection.agent.request("initialize", { protocolVersion: 2, info });
    await answerNext(peer, { protocolVersion: 2, info: agentInfo, capabilities: {} });
    await result;
    for (const method of [
      "session/new",
      "session/list",
      "session/resume",
      "session/close",
      "session/prompt",
      "session/cancel",
    ]) {
      assert.equal(connection.peerSupports(method), false, method);
    }
    await assert.rejects(
      connection.agent.request("session/new", { cwd: "/w", mcpServers: [] }),
      (error: unknown) => (error as Error).name === "CapabilityMissingError",
    );
    assert.equal(connection.peerSupports("_vendor/thing"), true);
    connection.close();
  },
);
