import assert from "node:assert/strict";
import { after, test } from "node:test";
import { AcpServer, type ConnectionEvent } from "./acp-server.js";
import { resolveLimits } from "./limits.js";
import { initialize, initializeMessage, openStream, post, request, send } from "./testing/http-client.js";
import { testAgent } from "./testing/test-agent.js";

const servers: AcpServer[] = [];
function setup(options: Record<string, unknown> = {}) {
  const agent = testAgent();
  const closes: ConnectionEvent[] = [];
  const waiters: Array<() => void> = [];
  const acp = new AcpServer({
    agent: agent.app,
    ...options,
    onConnectionEvent: (event) => {
      if (event.type !== "close") return;
      closes.push(event);
      for (const wake of waiters.splice(0)) wake();
    },
  });
  servers.push(acp);
  const closed = async (count = 1) => {
    while (closes.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    return closes[count - 1]!;
  };
  return { acp, agent, closes, closed };
}
after(() => Promise.all(servers.map((s) => s.close())));

const newSession = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "session/new",
  params: { cwd: "/work", mcpServers: [] },
});
const prompt = (id: number, sessionId: string, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

async function sessionOn(acp: AcpServer) {
  const { connectionId } = await initialize(acp);
  const conn = await openStream(acp, connectionId);
  await post(acp, connectionId, newSession(1));
  const sessionId = (await conn.next()).result.sessionId as string;
  return { connectionId, conn, sessionId };
}

test("413 for a body over maxRequestBodyBytes, by Content-Length or by what arrives", async () => {
  const { acp } = setup({ maxRequestBodyBytes: 1024 });
  const big = JSON.stringify({ ...initializeMessage(), padding: "x".repeat(2000) });
  const declared = await send(acp, { rawBody: big });
  assert.equal(declared.status, 413);
  assert.match(await declared.text(), /maxRequestBodyBytes/);
  let pulls = 0;
  const chunk = new TextEncoder().encode("x".repeat(512));
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      controller.enqueue(chunk);
    },
  });
  const streamed = new Request("http://127.0.0.1:8123/acp", {
    method: "POST",
    headers: { host: "127.0.0.1:8123", "content-type": "application/json" },
    body: endless,
    duplex: "half",
  } as RequestInit);
  assert.equal((await acp.handleRequest(streamed, { socket: { localAddress: "127.0.0.1" } })).status, 413);
  assert.ok(pulls < 10, `reading stopped at the limit (pulled ${pulls} chunks)`);
  assert.equal((await send(acp, { body: initializeMessage() })).status, 200, "a small body still passes");
});

test("maxConnections: one more initialize gets 503 until a connection ends", async () => {
  const { acp, closed } = setup({ maxConnections: 2 });
  const first = await initialize(acp);
  await initialize(acp);
  const third = await send(acp, { body: initializeMessage() });
  assert.equal(third.status, 503);
  assert.match(await third.text(), /maxConnections/);
  assert.equal(third.headers.get("retry-after"), "5");
  await send(acp, { method: "DELETE", headers: { "acp-connection-id": first.connectionId } });
  await closed(1);
  assert.equal((await send(acp, { body: initializeMessage() })).status, 200);
  const upgrade = acp.checkWebSocketUpgrade(request({ method: "GET", headers: { upgrade: "websocket" } }), {
    localAddress: "127.0.0.1",
  });
  assert.equal(!upgrade.ok && upgrade.response.status, 503, "WebSocket upgrades count too");
});

test(
  "a client that stops reading holds the agent back, then is disconnected after maxOutputStallMs and its agent " +
    "stopped",
  async () => {
    const { acp, agent, closed } = setup({ maxBufferedBytes: 20_000, maxOutputStallMs: 300 });
    const { connectionId, sessionId } = await sessionOn(acp);
    // The session stream is opened but never read: everything the agent sends stays queued on the server.
    const response = await send(acp, {
      method: "GET",
      headers: { accept: "text/event-stream", "acp-connection-id": connectionId, "acp-session-id": sessionId },
    });
    assert.equal(response.status, 200);
    await post(acp, connectionId, prompt(2, sessionId, "stream 100000"), sessionId);
    const event = await closed(1);
    assert.equal(event.type === "close" && event.reason, "limit");
    assert.match(
      String(event.type === "close" && (event.error as Error).message),
      /read none of its .* output for 300 ms/,
    );
    await agent.closedCount(1);
    await response.body!.cancel();
  },
);

test(
  "an agent that does not wait for a client that does not read is " + "cut off at maxBufferedBytes + maxMessageBytes",
  async () => {
    const { acp, closed } = setup({ maxBufferedBytes: 50_000, maxMessageBytes: 10_000, maxOutputStallMs: 60_000 });
    const { connectionId, sessionId } = await sessionOn(acp);
    await post(acp, connectionId, prompt(2, sessionId, "flood 1000"), sessionId);
    const event = await closed(1);
    assert.equal(event.type === "close" && event.reason, "limit");
    assert.match(String(event.type === "close" && (event.error as Error).message), /did not wait/);
  },
);

test("a client request waits while the client is behind on its output, and goes through once it reads", async () => {
  const { acp } = setup({ maxBufferedBytes: 5_000 });
  const { connectionId, sessionId } = await sessionOn(acp);
  await post(acp, connectionId, prompt(2, sessionId, "stream 500"), sessionId);
  while ((acp.stats()[0]?.bufferedOutput ?? 0) < 5_000) await new Promise((resolve) => setImmediate(resolve));
  let answered = false;
  const held = post(acp, connectionId, newSession(3)).then((response) => {
    answered = true;
    return response;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(answered, false, "the POST is held while the output is backed up");
  const stream = await openStream(acp, connectionId, sessionId);
  await stream.until((event) => event.id === 2);
  assert.equal((await held).status, 202);
  await stream.cancel();
});

test(
  "an HTTP connection with no stream open and no request is " + "closed after idleTimeoutMs and its agent stopped",
  async () => {
    const { acp, agent, closed } = setup({ idleTimeoutMs: 200 });
    const { connectionId } = await initialize(acp);
    const event = await closed(1);
    assert.equal(event.type === "close" && event.reason, "idle");
    assert.equal(event.connectionId, connectionId);
    await agent.closedCount(1);
    assert.equal((await post(acp, connectionId, newSession(1))).status, 404);
  },
);

test("an open stream keeps a connection from going idle; closing it starts the clock", async () => {
  const { acp, closes, closed } = setup({ idleTimeoutMs: 150 });
  const { connectionId, conn } = await sessionOn(acp);
  // A round trip well past the idle timeout while the stream is open: still alive.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(closes.length, 0);
  assert.equal((await post(acp, connectionId, newSession(2))).status, 202);
  assert.equal((await conn.next()).id, 2);
  await conn.cancel();
  assert.equal((await closed(1)).type === "close" && closes[0]!.type === "close" && closes[0]!.reason, "idle");
});

test("maxIdLength: an over-long session id or request id is 400", async () => {
  const { acp } = setup({ maxIdLength: 16 });
  const { connectionId } = await initialize(acp);
  const long = "s".repeat(17);
  assert.equal((await post(acp, connectionId, prompt(1, long, "hi"), long)).status, 400);
  assert.equal(
    (
      await send(acp, {
        method: "GET",
        headers: { accept: "text/event-stream", "acp-connection-id": connectionId, "acp-session-id": long },
      })
    ).status,
    400,
  );
  assert.equal((await post(acp, connectionId, { ...newSession(1), id: "r".repeat(17) })).status, 400);
});

test("maxOpenSessionStreams: one more session GET is 429; maxPendingRequests: one more request is 429", async () => {
  const { acp } = setup({ maxOpenSessionStreams: 2, maxPendingRequests: 2 });
  const { connectionId, sessionId } = await sessionOn(acp);
  const a = await openStream(acp, connectionId, "a");
  const b = await openStream(acp, connectionId, "b");
  assert.equal(
    (
      await send(acp, {
        method: "GET",
        headers: { accept: "text/event-stream", "acp-connection-id": connectionId, "acp-session-id": "c" },
      })
    ).status,
    429,
  );
  await a.cancel();
  await b.cancel();
  assert.equal((await post(acp, connectionId, prompt(2, sessionId, "slow"), sessionId)).status, 202);
  assert.equal((await post(acp, connectionId, prompt(3, sessionId, "slow"), sessionId)).status, 202);
  const third = await post(acp, connectionId, prompt(4, sessionId, "slow"), sessionId);
  assert.equal(third.status, 429);
  assert.match(await third.text(), /maxPendingRequests/);
});

test(
  "maxBufferedSessionStreams: output for more sessions than " + "that, none of them open, closes the connection",
  async () => {
    const { acp, closed } = setup({ maxBufferedSessionStreams: 2 });
    const { connectionId, conn } = await sessionOn(acp);
    for (const id of [2, 3]) {
      await post(acp, connectionId, newSession(id));
      await conn.next();
    }
    const sessions = ["sess-1", "sess-2", "sess-3"];
    for (const [index, sessionId] of sessions.entries())
      await post(acp, connectionId, prompt(10 + index, sessionId, "hello"), sessionId);
    const event = await closed(1);
    assert.equal(event.type === "close" && event.reason, "limit");
    assert.match(String(event.type === "close" && (event.error as Error).message), /maxBufferedSessionStreams/);
  },
);

test("limits are validated with messages that name them", () => {
  assert.throws(() => resolveLimits({ maxBufferedBytes: 0 }), /maxBufferedBytes must be a positive safe integer/);
  assert.throws(() => resolveLimits({ idleTimeoutMs: 2 ** 31 }), /idleTimeoutMs must be at most/);
  assert.equal(resolveLimits().maxBufferedBytes, 64 * 1024 * 1024);
});
