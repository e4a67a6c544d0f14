/**
 * Fault 3 of issue 8: a tolerant reader and a forgiving writer by default. What we send is checked; a problem is
 * reported through the logger with its JSON path and the message still goes out. Off-schema results from lax peers
 * are passed through (reported), while lenient parsing still repairs what the schema's annotations allow. Strict
 * mode stays one option away (`validateOutgoing: "strict"` or the former `true`, `validateResponses: "strict"`).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  AgentSideConnection,
  ClientSideConnection,
  InvalidResponseError,
  RequestError,
  SchemaValidationError,
  type Agent,
  type AcpConnectionOptions,
  type Client,
  type SessionNotification,
} from "../../src/entries/index.js";
import { rawPeer, recordingLogger } from "./support/raw-peer.js";

const isResponse = (id: number) => (m: Record<string, unknown>) => m.id === id && !("method" in m);
const isMethod = (method: string) => (m: Record<string, unknown>) => m.method === method;

function agentOn(options: AcpConnectionOptions, overrides: Partial<Agent> = {}) {
  const peer = rawPeer();
  let connection!: AgentSideConnection;
  new AgentSideConnection(
    (conn) => {
      connection = conn;
      return {
        initialize: async () => ({ protocolVersion: 1 }),
        newSession: async () => ({ sessionId: "s1" }),
        authenticate: async () => ({}),
        prompt: async () => ({ stopReason: "end_turn" }),
        cancel: async () => {},
        ...overrides,
      };
    },
    peer.stream,
    options,
  );
  return { peer, connection };
}

function clientOn(options: AcpConnectionOptions, overrides: Partial<Client> = {}) {
  const peer = rawPeer();
  const connection = new ClientSideConnection(
    () => ({
      requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: async () => {},
      ...overrides,
    }),
    peer.stream,
    options,
  );
  return { peer, connection };
}

const newerKind = {
  sessionId: "s1",
  update: { sessionUpdate: "brand_new_kind", detail: { x: 1 } },
} as unknown as SessionNotification;

describe("forgiving writer (default)", () => {
  test("an update kind newer than our schema is sent, and the problem is reported with its JSON path", async () => {
    const logger = recordingLogger();
    const { peer, connection } = agentOn({ logger });
    await connection.sessionUpdate(newerKind);
    const sent = await peer.next(isMethod("session/update"));
    assert.deepEqual(sent.params, newerKind);
    const warning = logger.lines.find((l) => l.level === "warn");
    assert.ok(warning, logger.text());
    assert.match(warning.message, /session\/update/);
    assert.match(JSON.stringify(warning.fields), /\$\.update\.sessionUpdate/);
  });

  test("the same problem is reported once per connection, not once per message", async () => {
    const logger = recordingLogger();
    const { peer, connection } = agentOn({ logger });
    for (let i = 0; i < 5; i++) await connection.sessionUpdate(newerKind);
    await peer.next((m) => m.method === "session/update", 4);
    assert.equal(logger.lines.filter((l) => l.level === "warn").length, 1, logger.text());
  });

  test("a handler result slightly off the schema is sent as it is, and reported", async () => {
    const logger = recordingLogger();
    const { peer } = agentOn({ logger }, { newSession: async () => ({ sessionId: 7 }) as never });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    assert.deepEqual((await peer.next(isResponse(1))).result, { sessionId: 7 });
    assert.match(logger.text(), /session\/new[\s\S]*\$\.sessionId/);
  });

  test("an extension variant in a request goes out; the peer's answer comes back", async () => {
    const logger = recordingLogger();
    const { peer, connection } = clientOn({ logger });
    const prompt = connection.prompt({ sessionId: "s1", prompt: [{ type: "_acme/sketch", strokes: 3 } as never] });
    const sent = await peer.next(isMethod("session/prompt"));
    assert.deepEqual((sent.params as { prompt: unknown[] }).prompt, [{ type: "_acme/sketch", strokes: 3 }]);
    await peer.send({ jsonrpc: "2.0", id: sent.id, result: { stopReason: "end_turn" } });
    assert.deepEqual(await prompt, { stopReason: "end_turn" });
  });
});

describe("strict writer (opt-in)", () => {
  for (const validateOutgoing of ["strict", true] as const) {
    test(`validateOutgoing: ${JSON.stringify(validateOutgoing)} refuses to send an off-schema message`, async () => {
      const { peer, connection } = agentOn({ validateOutgoing, logger: recordingLogger() });
      await assert.rejects(connection.sessionUpdate(newerKind), (error: unknown) => {
        assert.ok(error instanceof SchemaValidationError);
        assert.equal(error.issues[0]!.path, "$.update.sessionUpdate");
        return true;
      });
      await connection.sessionUpdate({
        sessionId: "s1",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ok" } },
      });
      await peer.next(isMethod("session/update"));
      assert.equal(peer.received.length, 1, "only the valid update went out");
    });
  }

  test('validateOutgoing: "strict" answers an off-schema handler result with -32603', async () => {
    const { peer } = agentOn(
      { validateOutgoing: "strict", logger: recordingLogger() },
      { newSession: async () => ({ sessionId: 7 }) as never },
    );
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } });
    assert.equal(((await peer.next(isResponse(1))).error as { code: number }).code, -32603);
  });

  test("validateOutgoing: false checks nothing and reports nothing", async () => {
    const logger = recordingLogger();
    const { peer, connection } = agentOn({ validateOutgoing: false, logger });
    await connection.sessionUpdate(newerKind);
    await peer.next(isMethod("session/update"));
    assert.equal(logger.lines.filter((l) => l.level === "warn").length, 0);
  });
});

describe("tolerant reader", () => {
  test("an off-schema result from a lax peer is passed through and reported with its path", async () => {
    const logger = recordingLogger();
    const { peer, connection } = clientOn({ logger });
    const answer = connection.newSession({ cwd: "/w", mcpServers: [] });
    const sent = await peer.next(isMethod("session/new"));
    await peer.send({ jsonrpc: "2.0", id: sent.id, result: { sessionId: 42, modes: "none" } });
    assert.deepEqual(await answer, { sessionId: 42, modes: "none" });
    assert.match(logger.text(), /session\/new[\s\S]*\$\.sessionId/);
  });

  test("lenient parsing still repairs what the schema allows (x-deserialize-default-on-error), silently", async () => {
    const logger = recordingLogger();
    const { peer, connection } = clientOn({ logger });
    const answer = connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const sent = await peer.next(isMethod("initialize"));
    await peer.send({
      jsonrpc: "2.0",
      id: sent.id,
      result: { protocolVersion: 1, agentCapabilities: { loadSession: "yes" } },
    });
    const result = await answer;
    assert.equal(result.agentCapabilities?.loadSession, false, "repaired to the schema's default");
    assert.equal(logger.lines.filter((l) => l.level === "warn" || l.level === "error").length, 0, logger.text());
  });

  test('validateResponses: "strict" rejects an off-schema result with InvalidResponseError', async () => {
    const { peer, connection } = clientOn({ validateResponses: "strict", logger: recordingLogger() });
    const answer = connection.newSession({ cwd: "/w", mcpServers: [] });
    const sent = await peer.next(isMethod("session/new"));
    await peer.send({ jsonrpc: "2.0", id: sent.id, result: { sessionId: 42 } });
    await assert.rejects(answer, InvalidResponseError);
  });

  test("unknown update kinds reach the handler unchanged", async () => {
    const seen: SessionNotification[] = [];
    const { peer } = clientOn({ logger: recordingLogger() }, { sessionUpdate: async (n) => void seen.push(n) });
    await peer.send({ jsonrpc: "2.0", method: "session/update", params: newerKind });
    await peer.send({
      jsonrpc: "2.0",
      id: 9,
      method: "session/request_permission",
      params: { sessionId: "s1", toolCall: { toolCallId: "t" }, options: [] },
    });
    await peer.next(isResponse(9));
    assert.deepEqual(seen, [newerKind]);
  });

  test("invalid params of a request are still answered -32602 (a handler never sees them)", async () => {
    const { peer } = agentOn({ logger: recordingLogger() });
    await peer.send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: 5 } });
    const reply = await peer.next(isResponse(1));
    assert.equal((reply.error as RequestError).code, -32602);
  });
});
