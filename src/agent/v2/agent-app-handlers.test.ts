/** The 2.x agent app: request ids, entity cancels without a handler, registration errors, `initialized`, onConnect. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { wirePeer } from "../../acp/v2/testing/wire-peer.js";
import { client } from "../../client/v2/client-app.js";
import { agent } from "./agent-app.js";

import { agentInfo, codeOf, newSession, recordingAgent, tick, v2Initialize } from "./testing/recording-agent.js";

test(
  "request ids must be strings or integers: a fractional or null id gets -32600 with id null, before or after " +
    "initialize",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    app.connect(peer.stream);
    for (const id of [1.5, null]) {
      const answer = await peer.call(id, "initialize", v2Initialize);
      assert.deepEqual([answer.id, codeOf(answer)], [null, -32600]);
    }
    assert.deepEqual(log, []);
    assert.ok("result" in (await peer.call("init", "initialize", v2Initialize)));
    const late = await peer.call(2.25, "session/new", newSession);
    assert.deepEqual([late.id, codeOf(late)], [null, -32600]);
    assert.deepEqual((await peer.call(-7, "session/new", newSession)).result, { sessionId: "s1" });
  },
);

test(
  'tool_call/cancel and terminal/cancel without a handler: -32602 naming the entity; a "*" fallback gets them ' +
    "instead",
  async () => {
    const { app } = recordingAgent();
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.call(1, "initialize", v2Initialize);
    const tool = await peer.call(2, "tool_call/cancel", { sessionId: "s1", toolCallId: "call-1" });
    assert.deepEqual([codeOf(tool), (tool.error as { data: unknown }).data], [-32602, { toolCallId: "call-1" }]);
    const terminal = await peer.call(3, "terminal/cancel", { sessionId: "s1", terminalId: "term-1" });
    assert.deepEqual(
      [codeOf(terminal), (terminal.error as { data: unknown }).data],
      [-32602, { terminalId: "term-1" }],
    );
    assert.equal(codeOf(await peer.call(4, "session/list", {})), -32601, "other unhandled methods stay -32601");

    const withFallback = agent()
      .onRequest("initialize", () => ({ protocolVersion: 2, info: agentInfo }))
      .onRequest("*", ({ method }) => ({ fallback: method }));
    const other = wirePeer();
    withFallback.connect(other.stream);
    await other.call(1, "initialize", v2Initialize);
    assert.deepEqual((await other.call(2, "tool_call/cancel", { sessionId: "s1", toolCallId: "c" })).result, {
      fallback: "tool_call/cancel",
    });
    assert.deepEqual((await other.call(3, "terminal/cancel", { sessionId: "s1", terminalId: "t" })).result, {
      fallback: "terminal/cancel",
    });
  },
);

test(
  "registration and direction errors: no initialize handler, a parser for a v2 method, a v2 method sent the " +
    "wrong way",
  async () => {
    const noInitialize = agent().onRequest("session/new", () => ({ sessionId: "s" }));
    assert.throws(() => noInitialize.connect(wirePeer().stream), /requires an initialize request handler/);
    await assert.rejects(
      noInitialize.connectWith(wirePeer().stream, () => 1),
      /requires an initialize request handler/,
    );
    assert.throws(() => client().connect(noInitialize), /requires an initialize request handler/);
    assert.throws(
      () =>
        agent().onRequest(
          "session/new" as "_x",
          (raw) => raw,
          () => ({}),
        ),
      (error: unknown) => {
        return (
          error instanceof TypeError &&
          /Cannot replace the built-in ACP v2 request parser for 'session\/new'/.test(error.message)
        );
      },
    );
    assert.throws(
      () =>
        agent().onNotification(
          "session/cancel" as "_x",
          (raw) => raw,
          () => {},
        ),
      TypeError,
    );
    assert.throws(
      () =>
        agent().onRequest(
          "session/request_permission" as "_x",
          (raw) => raw,
          () => ({}),
        ),
      /request the client handles, not the agent/,
    );
    assert.ok(
      agent().onRequest(
        "_acme/thing",
        (raw) => raw,
        () => ({}),
      ),
    );

    const { app } = recordingAgent();
    const connection = app.connect(wirePeer().stream);
    assert.throws(
      () => connection.client.request("session/new" as "_x", newSession),
      /'session\/new' is not valid in this direction/,
    );
    assert.throws(() => connection.client.notify("session/cancel" as "_x", {}), TypeError);
    let settled = false;
    const extension = connection.client.request("_acme/ask", {});
    void extension.catch(() => (settled = true));
    await tick();
    assert.equal(settled, false, "an extension call is allowed, and waits for initialization");
    connection.close(new Error("went away"));
    await assert.rejects(extension, /went away/, "and rejects when the connection closes first");
  },
);

test(
  "initialized: on the handle, handler contexts and connect contexts, a copy of the parsed exchange; calls to " +
    "the client wait for it",
  async () => {
    const contexts: Array<Promise<unknown>> = [];
    const app = agent()
      .onConnect((connection) => {
        contexts.push(connection.initialized, connection.client.initialized);
        void connection.client.notify("session/update", {
          sessionId: "s1",
          update: {
            sessionUpdate: "agent_message_chunk",
            messageId: "m1",
            content: { type: "text", text: "from onConnect" },
          },
        });
      })
      .onRequest("initialize", ({ client: context }) => {
        contexts.push(context.initialized);
        return { protocolVersion: 2, info: agentInfo };
      });
    const updates: string[] = [];
    const clientApp = client().onNotification("session/update", ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk")
        updates.push((params.update.content as { text: string }).text);
    });
    const connection = clientApp.connect(app);
    await connection.agent.request("initialize", v2Initialize);
    const expected = {
      request: { ...v2Initialize, capabilities: {} },
      response: { protocolVersion: 2, info: agentInfo, capabilities: {} },
    };
    for (const snapshot of await Promise.all(contexts)) assert.deepEqual(snapshot, expected);
    const first = await contexts[0]!;
    (first as { request: { info: { name: string } } }).request.info.name = "mutated";
    assert.deepEqual(await contexts[1], expected, "each read is a copy");
    await connection.agent.request("_ping" as "_x", {}).catch(() => undefined);
    assert.deepEqual(updates, ["from onConnect"], "the onConnect notification waited for initialize, then went out");
    connection.close();
  },
);

test("onConnect runs before the first message; with deferConnectHandlers only when started, once", async () => {
  for (const defer of [false, true]) {
    const log: string[] = [];
    const app = agent()
      .onConnect(() => void log.push("connect"))
      .onRequest("initialize", () => {
        log.push("initialize");
        return { protocolVersion: 2, info: agentInfo };
      });
    const peer = wirePeer();
    const connection = app.connect(peer.stream, { deferConnectHandlers: defer });
    assert.equal(typeof connection.startConnectHandlers, defer ? "function" : "undefined");
    await peer.call(1, "initialize", v2Initialize);
    assert.deepEqual(log, defer ? ["initialize"] : ["connect", "initialize"]);
    connection.startConnectHandlers?.();
    connection.startConnectHandlers?.();
    assert.deepEqual(log, defer ? ["initialize", "connect"] : ["connect", "initialize"]);
  }
});
