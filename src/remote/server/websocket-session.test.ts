import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { after, test } from "node:test";
import { AcpServer, type ConnectionEvent } from "./acp-server.js";
import { initializeMessage } from "./testing/http-client.js";
import { testAgent } from "./testing/test-agent.js";

/** An in-memory server-side socket, `ws`-style: frames sent to the client are parsed into `sent`. */
class FakeSocket extends EventEmitter {
  readonly sent: any[] = [];
  /** The frames as sent, text. */
  readonly raw: string[] = [];
  closedWith: { code?: number; reason?: string } | undefined;
  /** What the socket reports as unsent; a test sets it to make the client look behind. */
  bufferedAmount = 0;
  #waiters: Array<{ test: () => boolean; resolve: () => void }> = [];

  send(data: string): void {
    if (this.closedWith) throw new Error("closed");
    this.raw.push(data);
    this.sent.push(JSON.parse(data));
    this.#check();
  }

  close(code?: number, reason?: string): void {
    if (this.closedWith) return;
    this.closedWith = { code, reason };
    this.#check();
    queueMicrotask(() => this.emit("close", code, reason));
  }

  /** A text frame from the client (or a binary one). */
  receive(message: unknown, binary = false): void {
    const text = typeof message === "string" ? message : JSON.stringify(message);
    this.emit("message", Buffer.from(text), binary);
  }

  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ test, resolve }));
  }

  untilMessage(test: (message: any) => boolean): Promise<any> {
    return this.until(() => this.sent.some(test)).then(() => this.sent.find(test));
  }

  #check(): void {
    const ready = this.#waiters.filter((w) => w.test());
    this.#waiters = this.#waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }
}

const servers: AcpServer[] = [];
function accepted(options: Record<string, unknown> = {}) {
  const agent = testAgent();
  const events: ConnectionEvent[] = [];
  const acp = new AcpServer({ agent: agent.app, ...options, onConnectionEvent: (event) => events.push(event) });
  servers.push(acp);
  const socket = new FakeSocket();
  const upgrade = acp.prepareWebSocketUpgrade();
  upgrade.accept(socket);
  return { acp, agent, socket, upgrade, events };
}
after(() => Promise.all(servers.map((s) => s.close())));

const prompt = (id: number, sessionId: string, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

test("initialize first, then every message of a turn, in order, one text frame each", async () => {
  const { socket, upgrade, events } = accepted();
  socket.receive(initializeMessage(1));
  assert.equal((await socket.untilMessage((m) => m.id === 1)).result.agentInfo.name, "remote-test-agent");
  assert.deepEqual(
    events.map((e) => [e.type, e.connectionId, e.transport]),
    [["open", upgrade.connectionId, "websocket"]],
  );
  socket.receive({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  const sessionId = (await socket.untilMessage((m) => m.id === 2)).result.sessionId;
  socket.receive(prompt(3, sessionId, "stream 4"));
  await socket.untilMessage((m) => m.id === 3);
  const turn = socket.sent.slice(socket.sent.findIndex((m) => m.id === 2) + 1);
  assert.deepEqual(
    turn.map((m) => m.method ?? `response ${m.id}`),
    ["session/update", "session/update", "session/update", "session/update", "response 3"],
  );
});

test("a first message other than initialize closes the socket with 1002; no agent is started", async () => {
  const { socket, agent, acp } = accepted();
  socket.receive({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  await socket.until(() => socket.closedWith !== undefined);
  assert.equal(socket.closedWith!.code, 1002);
  assert.equal(agent.stats.connected, 0);
  await socket.until(() => acp.connectionCount === 0);
});

test("ids beyond 2^53 come back with their exact text, and two that round to the same double stay apart", async () => {
  const { socket } = accepted();
  socket.receive(
    '{"jsonrpc":"2.0","id":12345678901234567890123,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}',
  );
  await socket.until(() => socket.raw.length === 1);
  assert.match(socket.raw[0]!, /^\{"jsonrpc":"2\.0","id":12345678901234567890123,"result":/);
  // 9007199254740993 and 9007199254740992 are the same JS number.
  socket.receive('{"jsonrpc":"2.0","id":9007199254740993,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
  socket.receive('{"jsonrpc":"2.0","id":9007199254740992,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
  await socket.until(() => socket.raw.length === 3);
  const ids = socket.raw.slice(1).map((text) => /"id":(\d+)/.exec(text)?.[1]);
  assert.deepEqual(ids.sort(), ["9007199254740992", "9007199254740993"]);
});

test("an initialize whose id is not a string, number or null is refused at once with -32600, the socket closed", async () => {
  for (const id of ["1e400", "{}", "[1]", "true"]) {
    const { socket, agent, acp } = accepted();
    const started = Date.now();
    socket.receive(
      `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
    );
    const refusal = await socket.untilMessage((m) => m.error?.code === -32600);
    assert.equal(refusal.id, null, id);
    assert.match(refusal.error.message, /the id must be a string, a number or null/);
    await socket.until(() => socket.closedWith !== undefined);
    assert.equal(socket.closedWith!.code, 1002);
    assert.ok(Date.now() - started < 1000, "at once, not after initializeTimeoutMs");
    assert.equal(agent.stats.connected, 0, "no agent started");
    await socket.until(() => acp.connectionCount === 0);
  }
  const { socket } = accepted();
  socket.receive(initializeMessage(1));
  await socket.untilMessage((m) => m.id === 1);
  socket.receive('{"jsonrpc":"2.0","id":{"a":1},"method":"session/new","params":{"cwd":"/","mcpServers":[]}}');
  const later = await socket.untilMessage((m) => m.error?.code === -32600);
  assert.equal(later.id, null);
  assert.equal(socket.closedWith, undefined, "after initialize, the connection stays up");
});

test("binary frames are ignored; bad JSON gets -32700, a batch -32600, a second initialize -32600; the connection stays up", async () => {
  const { socket } = accepted();
  socket.receive(initializeMessage(1), true);
  socket.receive("{not json");
  await socket.untilMessage((m) => m.error?.code === -32700);
  socket.receive(initializeMessage(1));
  await socket.untilMessage((m) => m.id === 1 && m.result);
  socket.receive([initializeMessage(2)]);
  const batch = await socket.untilMessage((m) => m.error?.code === -32600 && m.id === null);
  assert.match(batch.error.message, /batches/);
  socket.receive(initializeMessage(3));
  assert.equal((await socket.untilMessage((m) => m.id === 3)).error.code, -32600);
  socket.receive({ jsonrpc: "2.0", id: 4, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  assert.ok((await socket.untilMessage((m) => m.id === 4)).result.sessionId);
  assert.equal(socket.closedWith, undefined);
});

test("the socket closing ends the connection and stops its agent", async () => {
  const { socket, agent, acp, events } = accepted();
  socket.receive(initializeMessage(1));
  await socket.untilMessage((m) => m.id === 1);
  socket.emit("close", 1006, "");
  await agent.closedCount(1);
  await socket.until(() => acp.connectionCount === 0);
  assert.equal(events.at(-1)?.type === "close" && events.at(-1)!.type, "close");
});

test("a client that reads nothing while maxBufferedBytes wait in the socket is closed with 1008 after maxOutputStallMs", async () => {
  const { socket, agent, events } = accepted({ maxBufferedBytes: 1000, maxOutputStallMs: 200 });
  socket.receive(initializeMessage(1));
  await socket.untilMessage((m) => m.id === 1);
  socket.receive({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  const sessionId = (await socket.untilMessage((m) => m.id === 2)).result.sessionId;
  socket.bufferedAmount = 5000;
  socket.receive(prompt(3, sessionId, "stream 1000"));
  await socket.until(() => socket.closedWith !== undefined);
  assert.equal(socket.closedWith!.code, 1008);
  assert.match(socket.closedWith!.reason ?? "", /maxOutputStallMs/);
  const sentUpdates = socket.sent.filter((m) => m.method === "session/update").length;
  assert.ok(sentUpdates <= 2, `the agent was held back while the client was behind (${sentUpdates} updates sent)`);
  await agent.closedCount(1);
  const last = events.at(-1)!;
  assert.equal(last.type === "close" && last.reason, "limit");
});

test("a rejected upgrade frees its connection; a prepared upgrade is refused once the server is full", async () => {
  const agent = testAgent();
  const acp = new AcpServer({ agent: agent.app, maxConnections: 1 });
  servers.push(acp);
  const first = acp.prepareWebSocketUpgrade();
  assert.equal(acp.connectionCount, 1);
  assert.throws(() => acp.prepareWebSocketUpgrade(), /maxConnections/);
  first.reject();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(acp.connectionCount, 0);
  const second = acp.prepareWebSocketUpgrade();
  assert.notEqual(second.connectionId, first.connectionId);
  second.reject();
});

test("a socket that sends no initialize within initializeTimeoutMs is closed with 1008 and frees its slot", async () => {
  const { socket, acp, agent } = accepted({ initializeTimeoutMs: 100 });
  await socket.until(() => socket.closedWith !== undefined);
  assert.equal(socket.closedWith!.code, 1008);
  assert.equal(agent.stats.connected, 0);
  await socket.until(() => acp.connectionCount === 0);
});

test("stdioMcpServers refuse: a session/new naming a stdio MCP server is answered -32602 here; the agent never sees it", async () => {
  const { socket } = accepted({ stdioMcpServers: "refuse" });
  socket.receive(initializeMessage(1));
  await socket.untilMessage((m) => m.id === 1);
  socket.receive({
    jsonrpc: "2.0",
    id: 2,
    method: "session/new",
    params: { cwd: "/", mcpServers: [{ name: "shell", command: "/bin/sh", args: [], env: [] }] },
  });
  const refused = await socket.untilMessage((m) => m.id === 2);
  assert.equal(refused.error.code, -32602);
  assert.deepEqual(refused.error.data, { refused: ["shell"] });
  socket.receive({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: "/", mcpServers: [] } });
  // The test agent numbers its sessions: the first it ever made is this one, so the refused request never reached it.
  assert.equal((await socket.untilMessage((m) => m.id === 3)).result.sessionId, "sess-1");
});
