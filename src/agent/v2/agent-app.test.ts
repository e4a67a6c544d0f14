import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../../jsonrpc/index.js";
import { wirePeer } from "../../acp/v2/testing/wire-peer.js";
import { client } from "../../client/v2/client-app.js";
import { agent } from "./agent-app.js";

const info = { name: "test-client", version: "1.0.0" };
const agentInfo = { name: "test-agent", version: "2.0.0" };
const v2Initialize = { protocolVersion: 2, info };
const newSession = { cwd: "/work", mcpServers: [] };
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const codeOf = (message: Record<string, unknown>) => (message.error as { code?: number } | undefined)?.code;

/** A v2 agent that records what its handlers see. */
function recordingAgent() {
  const log: unknown[] = [];
  const app = agent()
    .onRequest("initialize", ({ params }) => {
      log.push(["initialize", params]);
      return { protocolVersion: 2, info: agentInfo };
    })
    .onRequest("session/new", () => ({ sessionId: "s1" }))
    .onNotification("session/cancel", ({ params }) => void log.push(["cancel", params.sessionId]));
  return { app, log };
}

test(
  "before initialize: requests get -32600 naming the method, " + "notifications are ignored; initialize still works",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "early" } });
    const early = await peer.call(1, "session/new", newSession);
    assert.equal(codeOf(early), -32600);
    assert.match((early.error as { message: string }).message, /initialized before 'session\/new'/);
    assert.deepEqual(peer.seen, []);
    assert.ok("result" in (await peer.call(2, "initialize", v2Initialize)));
    assert.deepEqual((await peer.call(3, "session/new", newSession)).result, { sessionId: "s1" });
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "late" } });
    await peer.call(4, "_ping", {});
    assert.deepEqual(
      log.filter((entry) => (entry as string[])[0] === "cancel"),
      [["cancel", "late"]],
    );
  },
);

test(
  "initialize for version 1 gets -32022 {requested: 1, " + "supported: [2]}; the connection may still initialize",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    app.connect(peer.stream);
    const refused = await peer.call(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(codeOf(refused), -32022);
    assert.deepEqual((refused.error as { data: unknown }).data, { requested: 1, supported: [2] });
    assert.deepEqual(log, []);
    assert.ok("result" in (await peer.call(2, "initialize", v2Initialize)));
  },
);

test(
  "initialize for a newer version: the handler sees " + "protocolVersion 2, a missing info replaced, and answers 2",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    const connection = app.connect(peer.stream);
    const answer = await peer.call(1, "initialize", {
      protocolVersion: 3,
      capabilities: { elicitation: { form: {} } },
    });
    assert.equal((answer.result as { protocolVersion: number }).protocolVersion, 2);
    const seen = {
      protocolVersion: 2,
      info: { name: "unknown", version: "unknown" },
      capabilities: { elicitation: { form: {} } },
    };
    assert.deepEqual(log, [["initialize", seen]]);
    assert.deepEqual((await connection.initialized).request, seen);
  },
);

test(
  "a repeated initialize: allowed before other requests (the " + "latest is authoritative), refused after one",
  async () => {
    const { app } = recordingAgent();
    const peer = wirePeer();
    const connection = app.connect(peer.stream);
    await peer.call(1, "initialize", v2Initialize);
    const second = { protocolVersion: 2, info: { name: "again", version: "2" } };
    assert.ok("result" in (await peer.call(2, "initialize", second)));
    assert.deepEqual((await connection.initialized).request.info, second.info);
    const lower = await peer.call(3, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(codeOf(lower), -32600, "a repeat must keep version 2");
    assert.match((lower.error as { message: string }).message, /repeated initialize must request protocol version 2/);
    const malformed = await peer.call(4, "initialize", { protocolVersion: 2 });
    assert.equal(codeOf(malformed), -32602);
    assert.deepEqual(
      (await connection.initialized).request.info,
      second.info,
      "failed repeats keep the previous exchange",
    );
    await peer.call(5, "session/new", newSession);
    const late = await peer.call(6, "initialize", v2Initialize);
    assert.equal(codeOf(late), -32600);
    assert.match((late.error as { message: string }).message, /must not be repeated after other requests/);
  },
);

test("a repeat whose handler fails leaves the client's capabilities of the exchange in effect", async () => {
  let calls = 0;
  const app = agent().onRequest("initialize", () => {
    if (++calls === 2) throw new RequestError(-32000, "not now");
    return { protocolVersion: 2, info: agentInfo };
  });
  const peer = wirePeer();
  const connection = app.connect(peer.stream);
  assert.equal(connection.peerSupports("elicitation/create"), false);
  await peer.call(1, "initialize", { ...v2Initialize, capabilities: { elicitation: { form: {} } } });
  assert.equal(connection.peerSupports("elicitation/create"), true);
  assert.equal(codeOf(await peer.call(2, "initialize", { ...v2Initialize, capabilities: {} })), -32000);
  assert.equal(
    connection.peerSupports("elicitation/create"),
    true,
    "the failed repeat's capabilities are not in effect",
  );
  assert.ok("result" in (await peer.call(3, "initialize", { ...v2Initialize, capabilities: {} })));
  assert.equal(connection.peerSupports("elicitation/create"), false, "a successful repeat's are");
});

test(
  "while initialize runs: other requests get -32600, another " + "initialize -32600, notifications are dropped",
  async () => {
    let release!: () => void;
    const log: string[] = [];
    const app = agent()
      .onRequest("initialize", async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return { protocolVersion: 2, info: agentInfo };
      })
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onNotification("session/cancel", ({ params }) => void log.push(params.sessionId));
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: v2Initialize });
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "during-first" } });
    assert.match(
      ((await peer.call(2, "session/new", newSession)).error as { message: string }).message,
      /initialized before 'session\/new'/,
    );
    assert.match(
      ((await peer.call(3, "initialize", v2Initialize)).error as { message: string }).message,
      /already in progress/,
    );
    release();
    assert.equal((await peer.next()).id, 1);
    assert.deepEqual(log, []);
  },
);

test(
  "notifications during a repeated initialize are held until it " + "settled, and delivered even when it failed",
  async () => {
    let calls = 0;
    let release!: () => void;
    const log: string[] = [];
    const app = agent()
      .onRequest("initialize", async () => {
        if (++calls === 2) {
          await new Promise<void>((resolve) => (release = resolve));
          throw new RequestError(-32000, "not now");
        }
        return { protocolVersion: 2, info: agentInfo };
      })
      .onNotification("session/cancel", ({ params }) => void log.push(params.sessionId));
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.call(1, "initialize", v2Initialize);
    await peer.send({ jsonrpc: "2.0", id: 2, method: "initialize", params: v2Initialize });
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "held" } });
    await tick();
    assert.deepEqual(log, [], "held while the repeat runs");
    release();
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "later" } });
    assert.equal(codeOf(await peer.next()), -32000);
    await tick();
    assert.deepEqual(log, ["held", "later"], "in arrival order");
  },
);

test(
  "an initialize handler that throws (or rejects) leaves the connection uninitialized: initialize can be sent " +
    "again",
  async () => {
    for (const fail of [
      () => {
        throw new Error("boom");
      },
      () => Promise.reject(new RequestError(-32000, "later")),
    ]) {
      let calls = 0;
      const app = agent()
        .onRequest("initialize", () => (++calls === 1 ? fail() : { protocolVersion: 2, info: agentInfo }))
        .onRequest("session/new", () => ({ sessionId: "s1" }));
      const peer = wirePeer();
      const connection = app.connect(peer.stream);
      let initialized = false;
      void connection.initialized.then(() => (initialized = true));
      assert.ok("error" in (await peer.call(1, "initialize", v2Initialize)));
      assert.equal(codeOf(await peer.call(2, "session/new", newSession)), -32600);
      await tick();
      assert.equal(initialized, false);
      assert.ok("result" in (await peer.call(3, "initialize", v2Initialize)));
      assert.ok("result" in (await peer.call(4, "session/new", newSession)));
      assert.equal((await connection.initialized).response.info.name, agentInfo.name);
    }
  },
);

test(
  "a handler answering protocolVersion 1 is refused (-32600 " + "with the versions) and nothing is initialized",
  async () => {
    for (const handler of [
      () => ({ protocolVersion: 1, info: agentInfo }),
      async () => ({ protocolVersion: 1, info: agentInfo }),
    ]) {
      const app = agent().onRequest("initialize", handler);
      const peer = wirePeer();
      app.connect(peer.stream);
      const answer = await peer.call(1, "initialize", v2Initialize);
      assert.equal(codeOf(answer), -32600);
      assert.deepEqual((answer.error as { data: unknown }).data, {
        expectedProtocolVersion: 2,
        receivedProtocolVersion: 1,
      });
      assert.equal(codeOf(await peer.call(2, "_x", {})), -32600, "still uninitialized");
      assert.equal(codeOf(await peer.call(3, "initialize", v2Initialize)), -32600, "the handler answers 1 again");
    }
  },
);

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
