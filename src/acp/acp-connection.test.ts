import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  CapabilityMissingError,
  InvalidResponseError,
  RequestError,
  silentLogger,
  type AnyMessage,
  type Stream,
} from "../jsonrpc/index.js";
import { SchemaValidationError } from "../protocol/index.js";
import { createMemoryPair } from "../transports/memory.js";
import { AcpConnection, type AcpConnectionOptions } from "./acp-connection.js";
import { stableFlavor } from "./flavors.js";

function pair(agentOptions: AcpConnectionOptions = {}, clientOptions: AcpConnectionOptions = {}) {
  const [a, c] = createMemoryPair();
  const agent = new AcpConnection("agent", a, stableFlavor, agentOptions);
  const client = new AcpConnection("client", c, stableFlavor, clientOptions);
  return { agent, client };
}

/** A client connection whose peer is a raw message stream the test writes to directly. */
function rawPeer(side: "agent" | "client", options: AcpConnectionOptions = {}) {
  const [mine, theirs] = createMemoryPair();
  const connection = new AcpConnection(side, mine, stableFlavor, options);
  const received: AnyMessage[] = [];
  const reader = (theirs as Stream).readable.getReader();
  const writer = (theirs as Stream).writable.getWriter();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      received.push(value);
    }
  })();
  const next = async (count: number) => {
    while (received.length < count) await new Promise((r) => setTimeout(r, 1));
    return received[count - 1]!;
  };
  return { connection, send: (m: unknown) => writer.write(m as AnyMessage), received, next };
}

const initParams = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
};

describe("AcpConnection: what it receives", () => {
  test("invalid params get -32602 naming the JSON path, and the connection stays up", async () => {
    const peer = rawPeer("agent");
    peer.connection.routes.onRequest("session/new", { handler: () => ({ sessionId: "s1" }) });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: 42, mcpServers: [] } });
    const reply = (await peer.next(1)) as {
      error: { code: number; message: string; data: { issues: Array<{ path: string }> } };
    };
    assert.equal(reply.error.code, -32602);
    assert.equal(reply.error.data.issues[0]!.path, "$.cwd");
    assert.match(reply.error.message, /\$\.cwd/);
    await peer.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    assert.deepEqual(await peer.next(2), { jsonrpc: "2.0", id: 2, result: { sessionId: "s1" } });
  });

  test("unknown methods get -32601, extension requests included; unknown notifications are ignored", async () => {
    const peer = rawPeer("agent");
    await peer.send({ jsonrpc: "2.0", method: "_acme/notice", params: {} });
    await peer.send({ jsonrpc: "2.0", method: "session/made_up" });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "_acme/ping", params: {} });
    await peer.send({
      jsonrpc: "2.0",
      id: 2,
      method: "session/load",
      params: { sessionId: "x", cwd: "/", mcpServers: [] },
    });
    assert.equal(((await peer.next(1)) as { error: { code: number } }).error.code, -32601);
    assert.equal(((await peer.next(2)) as { error: { code: number } }).error.code, -32601);
    assert.equal(peer.received.length, 2);
  });

  test("a handler returning nothing answers {} for methods whose result is an object", async () => {
    const peer = rawPeer("agent");
    peer.connection.routes.onRequest("session/set_mode", { handler: () => undefined });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/set_mode", params: { sessionId: "s", modeId: "code" } });
    assert.deepEqual(await peer.next(1), { jsonrpc: "2.0", id: 1, result: {} });
  });

  test("unknown update kinds and unknown fields reach the handler intact", async () => {
    const peer = rawPeer("client");
    const seen: unknown[] = [];
    peer.connection.routes.onNotification("session/update", { handler: (params) => void seen.push(params) });
    const future = {
      sessionId: "s",
      update: { sessionUpdate: "hologram", beams: 3 },
      _meta: { trace: "t1" },
      extra: true,
    };
    await peer.send({ jsonrpc: "2.0", method: "session/update", params: future });
    const chunk = {
      sessionId: "s",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi", vendorField: 1 } },
    };
    await peer.send({ jsonrpc: "2.0", method: "session/update", params: chunk });
    while (seen.length < 2) await new Promise((r) => setTimeout(r, 1));
    assert.deepEqual(seen, [future, chunk]);
  });

  test("an invalid notification is dropped with a warning; later ones still arrive", async () => {
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (m: string) => void warnings.push(m) };
    const peer = rawPeer("client", { logger });
    const seen: unknown[] = [];
    peer.connection.routes.onNotification("session/update", { handler: (params) => void seen.push(params) });
    await peer.send({
      jsonrpc: "2.0",
      method: "session/update",
      params: { update: { sessionUpdate: "plan", entries: [] } },
    });
    await peer.send({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "plan", entries: [] } },
    });
    while (seen.length < 1) await new Promise((r) => setTimeout(r, 1));
    assert.equal(seen.length, 1);
    assert.ok(warnings.some((w) => /invalid notification/.test(w)));
  });

  test("strict: a handler result that breaks the schema is answered -32603 and logged, not sent", async () => {
    const errors: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (m: string, f?: Record<string, unknown>) => void errors.push(`${m} ${f?.detail}`),
    };
    const peer = rawPeer("agent", { logger, validateOutgoing: "strict" });
    peer.connection.routes.onRequest("session/new", { handler: () => ({ sessionID: "wrong-case" }) });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    const reply = (await peer.next(1)) as { error: { code: number } };
    assert.equal(reply.error.code, -32603);
    assert.ok(
      errors.some((e) => /sessionId/.test(e)),
      errors.join("\n"),
    );
  });

  test("the initialization gate refuses requests before initialize, then lets them through", async () => {
    const peer = rawPeer("agent", { requireInitialize: true });
    peer.connection.routes.onRequest("initialize", { handler: () => ({ protocolVersion: 1 }) });
    peer.connection.routes.onRequest("session/new", { handler: () => ({ sessionId: "s" }) });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    const refused = (await peer.next(1)) as { error: { code: number; message: string } };
    assert.equal(refused.error.code, -32600);
    assert.equal(refused.error.message, "Invalid request: ACP connection must be initialized before 'session/new'");
    await peer.send({ jsonrpc: "2.0", id: 2, method: "initialize", params: initParams });
    await peer.next(2);
    await peer.send({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "/", mcpServers: [] } });
    assert.deepEqual(await peer.next(3), { jsonrpc: "2.0", id: 3, result: { sessionId: "s" } });
    // The schema's defaults fill what the client left out (auth.terminal: false); what it sent is kept.
    assert.deepEqual(peer.connection.peerCapabilities, { ...initParams.clientCapabilities, auth: { terminal: false } });
  });
});

describe("AcpConnection: what it sends", () => {
  test("results are validated (leniently) and null is accepted where an empty result is expected", async () => {
    const { agent, client } = pair();
    agent.routes.onRequest("initialize", {
      handler: () => ({ protocolVersion: 1, agentCapabilities: { loadSession: "yes" } }),
    });
    agent.routes.onRequest("session/set_mode", { handler: () => null });
    // The agent's own outgoing check would refuse loadSession: "yes"; turn it off to play a sloppy agent.
    const sloppy = pair({ validateOutgoing: false });
    sloppy.agent.routes.onRequest("initialize", {
      handler: () => ({ protocolVersion: 1, agentCapabilities: { loadSession: "yes" } }),
    });
    const init = await sloppy.client.request<{ agentCapabilities: { loadSession: boolean } }>("initialize", initParams);
    assert.equal(
      init.agentCapabilities.loadSession,
      false,
      "x-deserialize-default-on-error applies the schema default",
    );
    assert.deepEqual(await client.request("session/set_mode", { sessionId: "s", modeId: "m" }), {});
  });

  test("validateResponses: strict: an invalid result from the peer rejects with InvalidResponseError", async () => {
    const { agent, client } = pair({ validateOutgoing: false }, { validateResponses: "strict", logger: silentLogger });
    agent.routes.onRequest("session/new", { handler: () => ({ id: "no sessionId here" }) });
    await assert.rejects(
      client.request("session/new", { cwd: "/", mcpServers: [] }),
      (e) => e instanceof InvalidResponseError && /sessionId/.test(e.message),
    );
  });

  test("strict: an invalid outgoing request is refused locally with the path, and nothing is sent", async () => {
    const { agent, client } = pair({}, { validateOutgoing: "strict" });
    let called = false;
    agent.routes.onRequest("session/prompt", { handler: () => ((called = true), { stopReason: "end_turn" }) });
    await assert.rejects(
      client.request("session/prompt", { sessionId: "s", prompt: [{ type: "text" }] }),
      (e) => e instanceof SchemaValidationError && e.issues[0]!.path === "$.prompt[0].text",
    );
    await assert.rejects(client.notify("session/cancel", {}), SchemaValidationError);
    assert.equal(called, false);
  });

  test("peerSupports follows initialize; enforceCapabilities refuses ungranted calls locally", async () => {
    const { agent, client } = pair({ enforceCapabilities: true });
    agent.routes.onRequest("initialize", {
      handler: () => ({ protocolVersion: 1, agentCapabilities: { loadSession: true } }),
    });
    client.routes.onRequest("fs/read_text_file", { handler: () => ({ content: "x" }) });
    assert.equal(client.peerSupports("session/load"), false);
    await client.request("initialize", initParams);
    assert.equal(client.peerSupports("session/load"), true);
    assert.equal(client.peerSupports("session/list"), false);
    assert.equal(agent.peerSupports("fs/read_text_file"), true);
    assert.equal(agent.peerSupports("fs/write_text_file"), false);
    assert.equal(agent.peerSupports("_acme/anything"), true);
    await assert.rejects(
      agent.request("fs/write_text_file", { sessionId: "s", path: "/x", content: "" }),
      (e) => e instanceof CapabilityMissingError && /clientCapabilities\.fs\.writeTextFile/.test(e.message),
    );
    assert.deepEqual(await agent.request("fs/read_text_file", { sessionId: "s", path: "/x" }), { content: "x" });
  });

  test("extension methods go to the fallback with their full name and free-form params", async () => {
    const { agent, client } = pair();
    agent.routes.onRequest("*", { handler: (params, _ctx, method) => ({ method, params }) });
    assert.deepEqual(await client.request("_acme/ping", { n: 1 }), { method: "_acme/ping", params: { n: 1 } });
    await assert.rejects(client.request("_acme/ping", { big: 1n }), /serialize/);
  });

  test("a thrown RequestError from a handler reaches the caller as it is", async () => {
    const { agent, client } = pair();
    agent.routes.onRequest("session/load", {
      handler: () => {
        throw RequestError.resourceNotFound("session s9");
      },
    });
    await assert.rejects(
      client.request("session/load", { sessionId: "s9", cwd: "/", mcpServers: [] }),
      (e) => e instanceof RequestError && e.code === -32002,
    );
  });
});
