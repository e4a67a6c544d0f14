import assert from "node:assert/strict";
import { test } from "node:test";
import * as officialV1 from "@agentclientprotocol/sdk";
import * as officialV2 from "@agentclientprotocol/sdk/experimental/v2";
import { createMemoryPair } from "../transports/memory.js";
import { client as v1Client } from "../client/client-app.js";
import { client as v2Client } from "../client/v2/client-app.js";
import { wirePeer } from "../acp/v2/testing/wire-peer.js";
import { agent as v1Agent } from "./agent-app.js";
import { agent as v2Agent } from "./v2/agent-app.js";
import { agentProtocolRouter } from "./protocol-router.js";
import { captureConnector } from "./testing/capture-connector.js";

const clientInfo = { name: "test-client", version: "1.0.0" };
const v2Initialize = { protocolVersion: 2, info: clientInfo, capabilities: {} };
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** acpkit's v1 and v2 agents, each recording the initialize params its handler got and its onConnect runs. */
function implementations() {
  const log: Array<[string, unknown?]> = [];
  const v1 = v1Agent()
    .onConnect(() => void log.push(["v1 connect"]))
    .onRequest("initialize", ({ params }) => {
      log.push(["v1 initialize", params]);
      return { protocolVersion: 1, agentInfo: { name: "v1-impl", version: "1" } };
    })
    .onRequest("session/new", () => ({ sessionId: "v1-session" }));
  const v2 = v2Agent()
    .onConnect(() => void log.push(["v2 connect"]))
    .onRequest("initialize", ({ params }) => {
      log.push(["v2 initialize", params]);
      return { protocolVersion: 2, info: { name: "v2-impl", version: "2" }, capabilities: { session: {} } };
    })
    .onRequest("session/new", () => ({ sessionId: "v2-session" }));
  return { v1, v2, log };
}

test("a v1 client reaches the v1 implementation and a v2 client the v2 one (acpkit apps on every side)", async () => {
  const { v1, v2 } = implementations();
  const router = agentProtocolRouter().withV1(v1).withV2(v2);
  const [v1End, v1RouterEnd] = createMemoryPair();
  router.connect(v1RouterEnd);
  await v1Client().connectWith(v1End, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentInfo?.name, "v1-impl");
    assert.equal((await ctx.request("session/new", { cwd: "/work", mcpServers: [] })).sessionId, "v1-session");
  });
  const [v2End, v2RouterEnd] = createMemoryPair();
  router.connect(v2RouterEnd);
  await v2Client().connectWith(v2End, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 2, info: clientInfo });
    assert.equal(init.info.name, "v2-impl");
    const session = await ctx.buildSession("/work").start();
    assert.equal(session.sessionId, "v2-session");
    session.dispose();
  });
});

test(
  "a request for version 3 goes to v2: protocolVersion 2, a " + "missing info replaced, the rest read as v2",
  async () => {
    const { v1, v2, log } = implementations();
    const peer = wirePeer();
    agentProtocolRouter().withV1(v1).withV2(v2).connect(peer.stream);
    const answer = await peer.call(1, "initialize", {
      protocolVersion: 3,
      capabilities: { elicitation: { form: {} } },
    });
    assert.deepEqual(answer.result, {
      protocolVersion: 2,
      info: { name: "v2-impl", version: "2" },
      capabilities: { session: {} },
    });
    assert.deepEqual(log, [
      ["v2 connect"],
      [
        "v2 initialize",
        {
          protocolVersion: 2,
          info: { name: "unknown", version: "unknown" },
          capabilities: { elicitation: { form: {} } },
        },
      ],
    ]);
  },
);

test("a v1-only router takes any version; a v2 initialize reaches it in v1's shape", async () => {
  const capture = captureConnector();
  const router = agentProtocolRouter().withV1(capture);
  const v2Request = {
    protocolVersion: 2,
    info: clientInfo,
    capabilities: { auth: { terminal: {} }, elicitation: { form: {} }, _meta: { c: 1 } },
    _meta: { r: 2 },
  };
  const peers = [wirePeer(), wirePeer(), wirePeer()];
  const requests = [v2Request, { protocolVersion: 7 }, { protocolVersion: 0, clientCapabilities: { terminal: true } }];
  for (const [i, peer] of peers.entries()) {
    router.connect(peer.stream);
    await peer.send({ jsonrpc: "2.0", id: i, method: "initialize", params: requests[i] });
  }
  const forwarded = await Promise.all(capture.connections.map((c) => c.first));
  const v1Defaults = { fs: { readTextFile: false, writeTextFile: false }, terminal: false };
  const fromV2 = { ...v1Defaults, session: { configOptions: { boolean: {} } }, plan: {} };
  assert.deepEqual(
    forwarded.map((message) => message.params),
    [
      {
        protocolVersion: 1,
        clientCapabilities: { ...fromV2, auth: { terminal: true }, elicitation: { form: {} }, _meta: { c: 1 } },
        clientInfo,
        _meta: { r: 2 },
      },
      { protocolVersion: 1, clientCapabilities: { ...fromV2, auth: { terminal: false } } },
      { protocolVersion: 1, clientCapabilities: { ...v1Defaults, terminal: true, auth: { terminal: false } } },
    ],
  );
  assert.deepEqual(
    forwarded.map((message) => message.id),
    [0, 1, 2],
  );
});

test(
  "a v2-only router answers version 1 with -32022 {requested, supported: [2]} and stays open for a v2 " + "initialize",
  async () => {
    const { v2, log } = implementations();
    const peer = wirePeer();
    agentProtocolRouter().withV2(v2).connect(peer.stream);
    const refused = await peer.call(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.deepEqual(refused.error, {
      code: -32022,
      message: (refused.error as { message: string }).message,
      data: { requested: 1, supported: [2] },
    });
    assert.deepEqual(log, []);
    const answer = await peer.call(2, "initialize", v2Initialize);
    assert.equal((answer.result as { protocolVersion: number }).protocolVersion, 2);
  },
);

test(
  "before initialize: a request gets -32600, a batch one -32600 with id null, notifications and responses " + "nothing",
  async () => {
    const capture = captureConnector();
    const peer = wirePeer();
    agentProtocolRouter().withV1(captureConnector()).withV2(capture).connect(peer.stream);
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } });
    await peer.send({ jsonrpc: "2.0", id: 40, result: {} });
    await peer.send({ jsonrpc: "2.0", id: 41, error: { code: -32603, message: "x" } });
    await peer.send({ jsonrpc: "2.0", id: 42 });
    const early = await peer.call(1, "session/new", { cwd: "/", mcpServers: [] });
    assert.equal(early.id, 1);
    assert.equal((early.error as { code: number }).code, -32600);
    assert.deepEqual(peer.seen, [], "notifications and responses are not answered");
    void peer.send([{ jsonrpc: "2.0", id: 2, method: "initialize", params: v2Initialize }]);
    const batch = await peer.next();
    assert.equal(batch.id, null);
    assert.equal((batch.error as { code: number }).code, -32600);
    for (const junk of [5, "x", { foo: 1 }, { id: 3, method: "initialize", params: v2Initialize }]) {
      void peer.send(junk);
      const answer = await peer.next();
      assert.deepEqual([answer.id, (answer.error as { code: number }).code], [null, -32600], JSON.stringify(junk));
    }
    assert.equal(capture.connections.length, 0, "nothing was routed");
    await peer.send({ jsonrpc: "2.0", id: 4, method: "initialize", params: v2Initialize });
    const [connection] = capture.connections;
    assert.deepEqual(await connection!.first, { jsonrpc: "2.0", id: 4, method: "initialize", params: v2Initialize });
    assert.equal(connection!.messages.length, 1);
  },
);

test("an invalid protocolVersion gets -32602 (with the request's id), and the client may try again", async () => {
  const { v1, v2 } = implementations();
  const peer = wirePeer();
  agentProtocolRouter().withV1(v1).withV2(v2).connect(peer.stream);
  const invalid = [
    { protocolVersion: "2" },
    { protocolVersion: 1.5 },
    { protocolVersion: -1 },
    { protocolVersion: 0x10000 },
    {},
    null,
    [2],
  ];
  for (const [i, params] of invalid.entries()) {
    const answer = await peer.call(i, "initialize", params);
    assert.deepEqual([answer.id, (answer.error as { code: number }).code], [i, -32602], JSON.stringify(params));
  }
  assert.equal(
    ((await peer.call(99, "initialize", v2Initialize)).result as { protocolVersion: number }).protocolVersion,
    2,
  );
});

test(
  "params of exactly the selected version that do not parse are refused before routing: the client can fall " +
    "back to v1",
  async () => {
    const { v1, v2, log } = implementations();
    const peer = wirePeer();
    agentProtocolRouter().withV1(v1).withV2(v2).connect(peer.stream);
    const refused = await peer.call(1, "initialize", { protocolVersion: 2, capabilities: {} });
    assert.equal((refused.error as { code: number }).code, -32602);
    assert.match((refused.error as { message: string }).message, /invalid initialize params.*\$\.info/);
    assert.equal(log.length, 0, "nothing was routed");
    const answer = await peer.call(2, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal((answer.result as { protocolVersion: number }).protocolVersion, 1);
    assert.deepEqual(
      log.map(([what]) => what),
      ["v1 connect", "v1 initialize"],
    );
  },
);

test("on a v2 route a fractional or null id gets -32600 with id null (not routed); v1 routes keep any id", async () => {
  const v2 = captureConnector();
  const v1 = captureConnector();
  const peer = wirePeer();
  const router = agentProtocolRouter().withV1(v1).withV2(v2);
  router.connect(peer.stream);
  for (const id of [0.5, null]) {
    const answer = await peer.call(id, "initialize", v2Initialize);
    assert.deepEqual([answer.id, (answer.error as { code: number }).code], [null, -32600]);
  }
  assert.equal(v2.connections.length, 0);
  await peer.send({ jsonrpc: "2.0", id: "init", method: "initialize", params: v2Initialize });
  assert.equal((await v2.connections[0]!.first).id, "init");
  const v1Peer = wirePeer();
  router.connect(v1Peer.stream);
  await v1Peer.send({ jsonrpc: "2.0", id: 0.5, method: "initialize", params: { protocolVersion: 1 } });
  assert.equal((await v1.connections[0]!.first).id, 0.5);
});

test("closed resolves when the client leaves before initialize, and when the routed connection ends", async () => {
  const { v1, v2 } = implementations();
  const router = agentProtocolRouter().withV1(v1).withV2(v2);
  const early = wirePeer();
  const earlyLifecycle = router.connect(early.stream);
  await early.call(1, "session/new", {});
  await early.end();
  await earlyLifecycle.closed;
  await assert.rejects(early.next(), /closed its output/, "the router closed its side too");

  const [clientEnd, routerEnd] = createMemoryPair();
  const lifecycle = router.connect(routerEnd);
  let closed = false;
  void lifecycle.closed.then(() => (closed = true));
  const connection = v2Client().connect(clientEnd);
  await connection.agent.request("initialize", { protocolVersion: 2, info: clientInfo });
  await tick();
  assert.equal(closed, false, "still open while the client is");
  connection.close();
  await lifecycle.closed;

  const bare = {
    connect: (stream: { readable: ReadableStream }) =>
      void stream.readable.pipeTo(new WritableStream()).catch(() => undefined),
  };
  const peer = wirePeer();
  const bareLifecycle = agentProtocolRouter().withV2(bare).connect(peer.stream);
  await peer.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: v2Initialize });
  await peer.end();
  await bareLifecycle.closed; // an implementation without a lifecycle: the end of the client's input ends it
});

test("the official SDK's AgentApp (v1 root entry, v2 entry) serves as the implementations", async () => {
  const v1 = officialV1
    .agent()
    .onRequest("initialize", () => ({ protocolVersion: 1, agentInfo: { name: "official-v1", version: "1" } }))
    .onRequest("session/new", () => ({ sessionId: "official-v1-session" }));
  const v2 = officialV2
    .agent()
    .onRequest("initialize", ({ params }) => ({
      protocolVersion: 2,
      info: { name: `official-v2 for ${params.info.name}`, version: "2" },
    }))
    .onRequest("session/new", () => ({ sessionId: "official-v2-session" }));
  const router = agentProtocolRouter().withV1(v1).withV2(v2);
  const [v1End, v1RouterEnd] = createMemoryPair();
  router.connect(v1RouterEnd);
  await v1Client().connectWith(v1End, async (ctx) => {
    assert.equal(
      (await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} })).agentInfo?.name,
      "official-v1",
    );
    assert.equal((await ctx.request("session/new", { cwd: "/work", mcpServers: [] })).sessionId, "official-v1-session");
  });
  const [v2End, v2RouterEnd] = createMemoryPair();
  const lifecycle = router.connect(v2RouterEnd);
  await v2Client().connectWith(v2End, async (ctx) => {
    assert.equal(
      (await ctx.request("initialize", { protocolVersion: 2, info: clientInfo })).info.name,
      "official-v2 for test-client",
    );
    const session = await ctx.buildSession("/work").start();
    assert.equal(session.sessionId, "official-v2-session");
    session.dispose();
  });
  await lifecycle.closed;
});

test(
  "onConnect: before the initialize handler by default; with " + "deferConnectHandlers only once started (once)",
  async () => {
    for (const defer of [false, true]) {
      const { v1, v2, log } = implementations();
      const peer = wirePeer();
      const lifecycle = agentProtocolRouter()
        .withV1(v1)
        .withV2(v2)
        .connect(peer.stream, { deferConnectHandlers: defer });
      await peer.call(1, "initialize", v2Initialize);
      await tick();
      assert.deepEqual(
        log.map(([what]) => what),
        defer ? ["v2 initialize"] : ["v2 connect", "v2 initialize"],
      );
      lifecycle.startConnectHandlers?.();
      lifecycle.startConnectHandlers?.();
      assert.deepEqual(
        log.map(([what]) => what),
        defer ? ["v2 initialize", "v2 connect"] : ["v2 connect", "v2 initialize"],
      );
    }
    const capture = captureConnector();
    const peer = wirePeer();
    const lifecycle = agentProtocolRouter().withV2(capture).connect(peer.stream, { deferConnectHandlers: true });
    lifecycle.startConnectHandlers?.();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: v2Initialize });
    await capture.connections[0]!.first;
    assert.deepEqual(capture.connections[0]!.options, { deferConnectHandlers: true });
    assert.equal(
      capture.connections[0]!.started,
      1,
      "a start requested before routing reaches the implementation once routed",
    );
  },
);

test(
  "an implementation that throws when handed the connection: the client's initialize gets -32603 saying why, " +
    "the router logs it, the connection ends",
  async () => {
    const errors: Array<[string, unknown]> = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (message: string, fields?: unknown) => void errors.push([message, fields]),
    };
    const broken = {
      connect: () => {
        throw new Error("no model configured");
      },
    };
    const router = agentProtocolRouter({ logger }).withV2(broken);
    const [clientEnd, routerEnd] = createMemoryPair();
    const lifecycle = router.connect(routerEnd);
    const connection = v2Client().connect(clientEnd);
    const error = await connection.agent.request("initialize", v2Initialize).then(
      () => assert.fail("initialize should fail"),
      (e: unknown) => e as { code?: number; data?: unknown },
    );
    assert.equal(error.code, -32603);
    assert.deepEqual(error.data, { details: "no model configured" });
    await lifecycle.closed;
    await connection.closed;
    assert.equal(errors.length, 1);
    assert.match(errors[0]![0], /v2 implementation failed to take the connection/);
  },
);
