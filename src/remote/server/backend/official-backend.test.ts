/**
 * The adapter from the official SDK's `AcpHttpBackend` shape (`httpBackend`): what the server makes of each answer and
 * error of such a backend, and what it hands it (routes, cursors, touches). The backends here are written per test
 * against the SPI, as a user's would be.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentConnector } from "../../../acp/agent-connector.js";
import { AcpServer } from "../acp-server.js";
import { getStream, initializeMessage, post, send } from "../testing/http-client.js";
import type { AcpHttpBackend, AcpHttpLeaseResult, AcpHttpOutboundLease } from "./official-backend.js";

const NOT_USED: AgentConnector = { connect: () => assert.fail("the official backend hosts the agent itself") };

class StatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "AcpHttpBackendError";
  }
}

/** A backend whose every call is recorded and answered by `overrides` (or as a healthy backend would). */
function backend(overrides: Partial<AcpHttpBackend> = {}) {
  const calls: Array<[string, unknown]> = [];
  const record =
    <T>(name: string, answer: (input: any) => Promise<T>) =>
    (input: any) => {
      calls.push([name, input]);
      return answer(input);
    };
  const base: AcpHttpBackend = {
    initialize: async () => ({
      connectionId: "c1",
      response: { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } },
    }),
    loadConnection: async ({ connectionId }) => ({ connectionId }),
    touchConnection: async () => {},
    acceptClientMethodMessage: async () => ({ ok: true }),
    acceptClientResponse: async () => ({ ok: true }),
    openConnectionStream: async () => lease([]),
    openSessionStream: async () => lease([]),
    closeConnection: async () => true,
    close: async () => {},
  };
  const merged = { ...base, ...overrides } as unknown as Record<string, (input: any) => Promise<unknown>>;
  const spi = Object.fromEntries(
    Object.entries(merged).map(([name, fn]) => [name, record(name, fn)]),
  ) as unknown as AcpHttpBackend;
  return { spi, calls, server: new AcpServer({ agent: NOT_USED, httpBackend: spi }) };
}

function lease(results: AcpHttpLeaseResult[]): AcpHttpOutboundLease & { released: boolean } {
  const queue = [...results];
  const made = {
    released: false,
    receive: async (): Promise<AcpHttpLeaseResult> => queue.shift() ?? { done: true },
    release: () => {
      made.released = true;
    },
  };
  return made;
}

const session = { "acp-connection-id": "c1" };

test("initialize: the backend's response with its connection id; a plain failure is a JSON-RPC error with 500", async () => {
  const healthy = backend();
  const answer = await send(healthy.server, { body: initializeMessage() });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get("acp-connection-id"), "c1");
  assert.deepEqual(await answer.json(), { jsonrpc: "2.0", id: 0, result: { protocolVersion: 1 } });
  assert.equal(healthy.calls[0]![0], "initialize");

  const failing = backend({
    initialize: async () => {
      throw new Error("no agent today");
    },
  });
  const failed = await send(failing.server, { body: initializeMessage() });
  assert.equal(failed.status, 500);
  assert.deepEqual(await failed.json(), {
    jsonrpc: "2.0",
    id: 0,
    error: { code: -32603, message: "initialize failed: no agent today", data: "no agent today" },
  });
});

test("POST: routes handed over as the SPI has them (session/load answers on the connection stream), then a touch", async () => {
  const { server, calls } = backend();
  const load = { jsonrpc: "2.0", id: 5, method: "session/load", params: { sessionId: "s1", cwd: "/", mcpServers: [] } };
  assert.equal((await post(server, "c1", load, "s1")).status, 202);
  const prompt = { jsonrpc: "2.0", id: 6, method: "session/prompt", params: { sessionId: "s1", prompt: [] } };
  assert.equal((await post(server, "c1", prompt, "s1")).status, 202);
  const accepted = calls.filter(([name]) => name === "acceptClientMethodMessage").map(([, input]) => input);
  assert.deepEqual(
    accepted.map((input: any) => [input.route, input.responseRoute]),
    [
      [{ session: "s1" }, "connection"],
      [{ session: "s1" }, { session: "s1" }],
    ],
  );
  assert.equal(calls.filter(([name]) => name === "touchConnection").length, 2);
  const answer = { jsonrpc: "2.0", id: "perm-1", result: {} };
  assert.equal((await post(server, "c1", answer, "s1")).status, 202);
  assert.deepEqual(calls.find(([name]) => name === "acceptClientResponse")![1], {
    connectionId: "c1",
    message: answer,
    headerSessionId: "s1",
  });
});

test("statuses: unknown connection 404, { ok: false } as text, a status error as text or { code, message } JSON", async () => {
  const unknown = backend({ loadConnection: async () => undefined });
  assert.equal((await post(unknown.server, "nope", { jsonrpc: "2.0", method: "x" })).status, 404);
  assert.equal((await getStream(unknown.server, "nope")).status, 404);

  const refusing = backend({
    acceptClientMethodMessage: async () => ({ ok: false, status: 429, message: "slow down" }),
  });
  const refused = await post(refusing.server, "c1", { jsonrpc: "2.0", method: "x" });
  assert.equal(refused.status, 429);
  assert.equal(await refused.text(), "slow down");

  const coded = backend({
    acceptClientMethodMessage: async () => {
      throw new StatusError(503, "database away", "unavailable");
    },
  });
  const codedAnswer = await post(coded.server, "c1", { jsonrpc: "2.0", method: "x" });
  assert.equal(codedAnswer.status, 503);
  assert.deepEqual(await codedAnswer.json(), { code: "unavailable", message: "database away" });

  const plain = backend({
    closeConnection: async () => {
      throw new StatusError(418, "not today");
    },
  });
  const deleted = await send(plain.server, { method: "DELETE", headers: session });
  assert.equal(deleted.status, 418);
  assert.equal(await deleted.text(), "not today");

  const broken = backend({
    loadConnection: async () => {
      throw new TypeError("the store is gone");
    },
  });
  const failed = await post(broken.server, "c1", { jsonrpc: "2.0", method: "x" });
  assert.equal(failed.status, 500);
  assert.match(await failed.text(), /the server's backend failed \(the store is gone\)/);
});

test("GET: the stream-in-use error is 409, no lease is 404, Last-Event-ID is the cursor, ids and id-only events are written", async () => {
  const busy = backend({
    openSessionStream: async () => {
      const error = new Error("Outbound stream already has an active receiver");
      error.name = "HttpBackendStreamInUseError";
      throw error;
    },
    openConnectionStream: async () => undefined,
  });
  const conflict = await getStream(busy.server, "c1", "s1");
  assert.equal(conflict.status, 409);
  assert.match(await conflict.text(), /already has an active receiver/);
  assert.equal((await getStream(busy.server, "c1")).status, 404);

  const opened = lease([
    { done: false, id: "7" },
    { done: false, value: { jsonrpc: "2.0", method: "n" }, id: "8" },
    { done: false, value: { jsonrpc: "2.0", method: "m" } },
    { done: true },
  ]);
  const streaming = backend({ openConnectionStream: async () => opened });
  const response = await getStream(streaming.server, "c1", undefined, "6");
  assert.equal(response.status, 200);
  // The backend's stream finished, so the server ended it on purpose: its end event comes last.
  assert.equal(
    await response.text(),
    'id: 7\n\nid: 8\ndata: {"jsonrpc":"2.0","method":"n"}\n\ndata: {"jsonrpc":"2.0","method":"m"}\n\nevent: end\n\n',
  );
  assert.deepEqual(streaming.calls.find(([name]) => name === "openConnectionStream")![1], {
    connectionId: "c1",
    cursor: "6",
  });
  assert.equal(opened.released, true, "the lease is released when the response ends");
});
