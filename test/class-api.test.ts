import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AgentSideConnection,
  ClientSideConnection,
  ConnectionClosedError,
  createMemoryPair,
  RequestError,
  type Agent,
  type Client,
  type SessionNotification,
} from "../src/entries/index.js";
import * as unstable from "../src/entries/unstable.js";

/**
 * The 1.x class API, both faces, in one process. Process-level interop with the official SDK is in test/e2e/interop.
 */
function connect(agentImpl: (conn: AgentSideConnection) => Partial<Agent>, clientImpl: Partial<Client> = {}) {
  const [a, c] = createMemoryPair();
  let agentSide!: AgentSideConnection;
  new AgentSideConnection((conn) => {
    agentSide = conn;
    return {
      initialize: () => ({ protocolVersion: 1, agentCapabilities: { loadSession: true } }),
      newSession: () => ({ sessionId: "s1" }),
      authenticate: () => {},
      prompt: () => ({ stopReason: "end_turn" }),
      cancel: () => {},
      ...agentImpl(conn),
    } as Agent;
  }, a);
  const updates: SessionNotification[] = [];
  const client = new ClientSideConnection(
    () =>
      ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: (n) => void updates.push(n),
        ...clientImpl,
      }) as Client,
    c,
  );
  return { client, agentSide: () => agentSide, updates };
}

const init = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
};

describe("1.x class API", () => {
  test(
    "requests before initialize are served (as in 1.9.0); after " + "it, capabilities are known on both sides",
    async () => {
      const { client, agentSide } = connect(() => ({}));
      assert.deepEqual(await client.newSession({ cwd: "/w", mcpServers: [] }), { sessionId: "s1" });
      assert.equal(client.agentCapabilities, undefined);
      await client.initialize(init);
      assert.equal((client.agentCapabilities as { loadSession?: boolean } | undefined)?.loadSession, true);
      assert.equal(agentSide().clientCapabilities?.terminal, true);
      assert.equal(client.peerSupports("session/load"), true);
      assert.equal(agentSide().peerSupports("terminal/create"), true);
      assert.deepEqual(await client.newSession({ cwd: "/w", mcpServers: [] }), { sessionId: "s1" });
    },
  );

  test("a prompt's updates all reach sessionUpdate, in order, before the prompt resolves", async () => {
    const { client, updates } = connect((conn) => ({
      prompt: async (params) => {
        for (let i = 0; i < 200; i++) {
          void conn.sessionUpdate({
            sessionId: params.sessionId,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i} ` } },
          });
        }
        return { stopReason: "end_turn" };
      },
    }));
    await client.initialize(init);
    const response = await client.prompt({ sessionId: "s1", prompt: [{ type: "text", text: "go" }] });
    assert.equal(response.stopReason, "end_turn");
    assert.equal(updates.length, 200);
    assert.deepEqual(
      updates.map((u) => (u.update as { content: { text: string } }).content.text),
      Array.from({ length: 200 }, (_, i) => `${i} `),
    );
  });

  test(
    "optional methods the implementation lacks answer -32601; " + "closeSession of an unknown session counts as done",
    async () => {
      const { client } = connect(() => ({
        closeSession: () => {
          throw RequestError.resourceNotFound("session gone");
        },
      }));
      await client.initialize(init);
      await assert.rejects(
        client.loadSession({ sessionId: "s1", cwd: "/w", mcpServers: [] }),
        (e) => e instanceof RequestError && e.code === -32601,
      );
      assert.deepEqual(await client.closeSession({ sessionId: "gone" }), {});
    },
  );

  test(
    "extension methods and notifications travel with their full " + "names; named methods never fall into extMethod",
    async () => {
      const seen: string[] = [];
      const { client, agentSide } = connect(
        () => ({
          extMethod: async (method, params) => ({ method, echo: params }),
          extNotification: async (method) => void seen.push(method),
        }),
        { extMethod: async (method) => ({ from: "client", method }) },
      );
      await client.initialize(init);
      assert.deepEqual(await client.extMethod("_acme/ping", { n: 1 }), { method: "_acme/ping", echo: { n: 1 } });
      await client.extNotification("_acme/ping_note", {});
      await assert.rejects(
        client.setSessionMode({ sessionId: "s1", modeId: "x" }),
        (e) => e instanceof RequestError && e.code === -32601,
      );
      assert.deepEqual(await agentSide().extMethod("_editor/info", {}), { from: "client", method: "_editor/info" });
      await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual(seen, ["_acme/ping_note"]);
    },
  );

  test("createTerminal returns a handle whose calls carry the session and terminal ids", async () => {
    const calls: Array<[string, unknown]> = [];
    const clientImpl: Partial<Client> = {
      createTerminal: (p) => (calls.push(["create", p]), { terminalId: "t1" }),
      terminalOutput: (p) => (calls.push(["output", p]), { output: "hi\n", truncated: false }),
      waitForTerminalExit: (p) => (calls.push(["wait", p]), { exitCode: 0 }),
      killTerminal: (p) => void calls.push(["kill", p]),
      releaseTerminal: (p) => void calls.push(["release", p]),
    };
    const { client, agentSide } = connect(() => ({}), clientImpl);
    await client.initialize(init);
    const terminal = await agentSide().createTerminal({ sessionId: "s1", command: "echo", args: ["hi"] });
    assert.equal(terminal.id, "t1");
    assert.deepEqual(await terminal.currentOutput(), { output: "hi\n", truncated: false });
    assert.deepEqual(await terminal.waitForExit(), { exitCode: 0 });
    await terminal.kill();
    await terminal.release();
    assert.deepEqual(
      calls.map(([name]) => name),
      ["create", "output", "wait", "kill", "release"],
    );
    assert.ok(calls.slice(1).every(([, p]) => (p as { sessionId: string; terminalId: string }).terminalId === "t1"));
  });

  test("closing one side rejects the other's pending calls with ConnectionClosedError", async () => {
    const { client, agentSide } = connect(() => ({ prompt: () => new Promise(() => {}) }));
    await client.initialize(init);
    const pending = client.prompt({ sessionId: "s1", prompt: [] });
    agentSide().close(new Error("agent shutting down"));
    await assert.rejects(pending, ConnectionClosedError);
    await client.closed;
    assert.equal(client.signal.aborted, true);
  });

  test("the unstable entry's classes route and validate unstable methods", async () => {
    const [a, c] = createMemoryPair();
    new unstable.AgentSideConnection(
      () => ({
        initialize: () => ({ protocolVersion: 1 }),
        newSession: () => ({ sessionId: "s1" }),
        authenticate: () => {},
        prompt: () => ({ stopReason: "end_turn" }),
        cancel: () => {},
        unstable_forkSession: (p) => ({ sessionId: `${p.sessionId}-fork` }),
      }),
      a,
    );
    const client = new unstable.ClientSideConnection(
      () => ({ requestPermission: () => ({ outcome: { outcome: "cancelled" } }), sessionUpdate: () => {} }),
      c,
      {
        logger: unstable.silentLogger, // the invalid fork below is reported when sent; the agent refuses it
      },
    );
    await client.initialize(init);
    const fork = await client.unstable_forkSession({ sessionId: "s1", cwd: "/w", mcpServers: [] });
    assert.equal(fork.sessionId, "s1-fork");
    await assert.rejects(
      client.unstable_forkSession({ sessionId: "s1" } as never),
      (e) => e instanceof RequestError && e.code === -32602 && /cwd/.test(e.message),
    );
  });
});
