import assert from "node:assert/strict";
import { after, test } from "node:test";
import { AcpServer } from "./acp-server.js";
import { initialize, initializeMessage, openStream, post, send, type SseReader } from "./testing/http-client.js";
import { testAgent } from "./testing/test-agent.js";

/** A JSON-RPC error reply as the server sends it. */
type Reply = { id: unknown; error: { code: number } };

const servers: AcpServer[] = [];
function server(options: Partial<ConstructorParameters<typeof AcpServer>[0]> = {}) {
  const agent = testAgent();
  const created = new AcpServer({ agent: agent.app, ...options } as ConstructorParameters<typeof AcpServer>[0]);
  servers.push(created);
  return { server: created, agent };
}
after(() => Promise.all(servers.map((s) => s.close())));

const prompt = (id: number, sessionId: string, text: string) => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});
const newSession = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "session/new",
  params: { cwd: "/work", mcpServers: [] },
});

/** initialize, the connection stream, session/new: a session ready for prompts. */
async function session(
  acp: AcpServer,
): Promise<{ connectionId: string; conn: SseReader; sessionId: string; stream: SseReader }> {
  const { connectionId } = await initialize(acp);
  const conn = await openStream(acp, connectionId);
  assert.equal((await post(acp, connectionId, newSession(1))).status, 202);
  const [answer] = await conn.until((event) => event.id === 1);
  const sessionId = answer.result.sessionId as string;
  const stream = await openStream(acp, connectionId, sessionId);
  return { connectionId, conn, sessionId, stream };
}

test("initialize: 200 with the JSON response and Acp-Connection-Id; a second initialize on it is 400", async () => {
  const { server: acp } = server();
  const { connectionId, answer, response } = await initialize(acp);
  assert.match(connectionId, /^[0-9a-f-]{36}$/);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(answer.id, 0);
  assert.equal(answer.result.agentInfo.name, "remote-test-agent");
  const again = await send(acp, { body: initializeMessage(5), headers: { "acp-connection-id": connectionId } });
  assert.equal(again.status, 400);
  assert.match(await again.text(), /without Acp-Connection-Id/);
});

test(
  "POST statuses: 415 for a non-JSON type, 400 with -32700 for " + "bad JSON, 501 for a batch, 400 for a non-object",
  async () => {
    const { server: acp } = server();
    const { connectionId } = await initialize(acp);
    const headers = { "acp-connection-id": connectionId };
    const wrongType = await send(acp, { rawBody: "{}", headers: { ...headers, "content-type": "text/plain" } });
    assert.equal(wrongType.status, 415);
    const badJson = await send(acp, { rawBody: '{"jsonrpc":', headers });
    assert.equal(badJson.status, 400);
    assert.deepEqual(((await badJson.json()) as Reply).error.code, -32700);
    const batch = await send(acp, { body: [newSession(1), newSession(2)], headers });
    assert.equal(batch.status, 501);
    const batchError = (await batch.json()) as Reply;
    assert.equal(batchError.error.code, -32600);
    assert.equal(batchError.id, null);
    const scalar = await send(acp, { body: 42, headers });
    assert.equal(scalar.status, 400);
    assert.equal(((await scalar.json()) as Reply).error.code, -32600);
  },
);

test("POST: 400 without Acp-Connection-Id, 404 for an unknown one, 202 for a known one", async () => {
  const { server: acp } = server();
  assert.equal((await send(acp, { body: newSession(1) })).status, 400);
  assert.equal((await post(acp, "no-such-connection", newSession(1))).status, 404);
  const { connectionId } = await initialize(acp);
  const accepted = await post(acp, connectionId, newSession(1));
  assert.equal(accepted.status, 202);
  assert.equal(await accepted.text(), "");
});

test(
  "GET statuses: 406 without Accept: text/event-stream, 400 without the id, 404 unknown, 409 for a second " +
    "reader, 426 for an upgrade",
  async () => {
    const { server: acp } = server();
    const { connectionId } = await initialize(acp);
    assert.equal((await send(acp, { method: "GET", headers: { "acp-connection-id": connectionId } })).status, 406);
    assert.equal(
      (await send(acp, { method: "GET", headers: { "acp-connection-id": connectionId, accept: "*/*" } })).status,
      406,
    );
    assert.equal((await send(acp, { method: "GET", headers: { accept: "text/event-stream" } })).status, 400);
    assert.equal(
      (await send(acp, { method: "GET", headers: { accept: "text/event-stream", "acp-connection-id": "nope" } }))
        .status,
      404,
    );
    const first = await send(acp, {
      method: "GET",
      headers: { accept: "text/event-stream", "acp-connection-id": connectionId },
    });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "text/event-stream");
    const second = await send(acp, {
      method: "GET",
      headers: { accept: "text/event-stream", "acp-connection-id": connectionId },
    });
    assert.equal(second.status, 409);
    assert.equal(
      (await send(acp, { method: "GET", headers: { upgrade: "websocket", "acp-connection-id": connectionId } })).status,
      426,
    );
    await first.body!.cancel();
  },
);

test("other methods get 405 with Allow; DELETE is 202, then the connection is gone (404)", async () => {
  const { server: acp, agent } = server();
  const { connectionId } = await initialize(acp);
  const put = await send(acp, { method: "PUT", rawBody: "{}", headers: { "acp-connection-id": connectionId } });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, POST, DELETE");
  assert.equal((await send(acp, { method: "DELETE" })).status, 400);
  assert.equal((await send(acp, { method: "DELETE", headers: { "acp-connection-id": "nope" } })).status, 404);
  const conn = await openStream(acp, connectionId);
  assert.equal((await send(acp, { method: "DELETE", headers: { "acp-connection-id": connectionId } })).status, 202);
  assert.equal(await conn.next(), undefined, "the connection stream ends");
  assert.equal((await post(acp, connectionId, newSession(1))).status, 404);
  await agent.closedCount(1);
  assert.equal(acp.connectionCount, 0);
});

test(
  "routing: session/new answered on the connection stream; updates and the prompt's answer on the session " + "stream",
  async () => {
    const { server: acp } = server();
    const { connectionId, conn, sessionId, stream } = await session(acp);
    assert.equal((await post(acp, connectionId, prompt(2, sessionId, "stream 3"), sessionId)).status, 202);
    const events = await stream.until((event) => event.id === 2);
    assert.deepEqual(
      events.map((event) => event.method ?? `response ${event.id}`),
      ["session/update", "session/update", "session/update", "response 2"],
    );
    assert.deepEqual(events[3].result, { stopReason: "end_turn" });
    // Nothing of the session leaked onto the connection stream: the next thing there is the answer to a session/new.
    await post(acp, connectionId, newSession(3));
    assert.equal((await conn.next()).id, 3);
  },
);

test("a session-scoped POST needs Acp-Session-Id (400), and it must match the params (400)", async () => {
  const { server: acp } = server();
  const { connectionId, sessionId } = await session(acp);
  const missing = await post(acp, connectionId, prompt(2, sessionId, "hi"));
  assert.equal(missing.status, 400);
  assert.match(await missing.text(), /Missing Acp-Session-Id/);
  const mismatched = await post(acp, connectionId, prompt(2, sessionId, "hi"), "other-session");
  assert.equal(mismatched.status, 400);
  assert.match(await mismatched.text(), /Mismatched Acp-Session-Id/);
  const cancel = await post(acp, connectionId, { jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
  assert.equal(cancel.status, 400, "a session-scoped notification too");
});

test(
  "a permission round trip: the agent's request on the session stream, the client's answer POSTed with the " +
    "session header",
  async () => {
    const { server: acp } = server();
    const { connectionId, sessionId, stream } = await session(acp);
    await post(acp, connectionId, prompt(2, sessionId, "permission"), sessionId);
    const [asked] = await stream.until((event) => event.method === "session/request_permission");
    const answer = { jsonrpc: "2.0", id: asked.id, result: { outcome: { outcome: "selected", optionId: "allow" } } };
    const withoutHeader = await post(acp, connectionId, answer);
    assert.equal(withoutHeader.status, 400, "a response to a session's request needs that session's header");
    assert.equal((await post(acp, connectionId, answer, sessionId)).status, 202);
    const events = await stream.until((event) => event.id === 2);
    assert.equal(events[0].params.update.content.text, 'outcome {"outcome":"selected","optionId":"allow"}');
  },
);

test(
  "session/load on a new connection: its session stream may be opened first; replay there, the answer on the " +
    "connection stream",
  async () => {
    const { server: acp } = server();
    const { connectionId } = await initialize(acp);
    const conn = await openStream(acp, connectionId);
    const stream = await openStream(acp, connectionId, "sess-earlier");
    const load = {
      jsonrpc: "2.0",
      id: 7,
      method: "session/load",
      params: { sessionId: "sess-earlier", cwd: "/work", mcpServers: [] },
    };
    assert.equal((await post(acp, connectionId, load, "sess-earlier")).status, 202);
    const replay = await stream.next();
    assert.equal(replay.method, "session/update");
    assert.equal(replay.params.update.content.text, "replayed");
    const answer = await conn.next();
    assert.equal(answer.id, 7);
    assert.deepEqual(answer.result, {});
  },
);

test("messages for a session whose stream is not open yet wait for it, in order", async () => {
  const { server: acp } = server();
  const { connectionId, conn } = await (async () => {
    const init = await initialize(acp);
    return { connectionId: init.connectionId, conn: await openStream(acp, init.connectionId) };
  })();
  await post(acp, connectionId, newSession(1));
  const sessionId = (await conn.next()).result.sessionId;
  await post(acp, connectionId, prompt(2, sessionId, "stream 5"), sessionId);
  const stream = await openStream(acp, connectionId, sessionId);
  const events = await stream.until((event) => event.id === 2);
  assert.deepEqual(
    events.slice(0, 5).map((event) => event.params.update.content.text),
    ["chunk 0", "chunk 1", "chunk 2", "chunk 3", "chunk 4"],
  );
});

test("path and health: other paths are 404; the health endpoint answers without auth, 503 once closing", async () => {
  const { server: acp } = server({ path: "/acp", healthPath: "/healthz", token: "secret" });
  const elsewhere = await send(acp, {
    method: "GET",
    url: "http://127.0.0.1:8123/other",
    headers: { accept: "text/event-stream" },
  });
  assert.equal(elsewhere.status, 404);
  const health = await send(acp, {
    method: "GET",
    url: "http://127.0.0.1:8123/healthz",
    headers: { host: "evil.example" },
  });
  assert.equal(health.status, 200);
  assert.equal(await health.text(), "ok\n");
  await acp.close();
  assert.equal((await send(acp, { method: "GET", url: "http://127.0.0.1:8123/healthz" })).status, 503);
  const refused = await send(acp, { body: initializeMessage(), headers: { authorization: "Bearer secret" } });
  assert.equal(refused.status, 503);
});

test(
  "responseHeaders adds headers (an affinity cookie) to every " + "response, the initialize answer included",
  async () => {
    const { server: acp } = server({
      responseHeaders: ({ connectionId }) =>
        connectionId ? { "Set-Cookie": `affinity=${connectionId.slice(0, 8)}; Path=/; HttpOnly` } : undefined,
    });
    const { connectionId, response } = await initialize(acp);
    assert.equal(response.headers.get("set-cookie"), `affinity=${connectionId.slice(0, 8)}; Path=/; HttpOnly`);
    const accepted = await post(acp, connectionId, newSession(1));
    assert.match(accepted.headers.get("set-cookie") ?? "", /^affinity=/);
  },
);

test("close({ graceMs }) cancels running turns first: the client sees its prompt end cancelled", async () => {
  const { server: acp, agent } = server();
  const { connectionId, sessionId, stream } = await session(acp);
  await post(acp, connectionId, prompt(2, sessionId, "slow"), sessionId);
  await stream.until((event) => event.params?.update?.content?.text === "waiting");
  await acp.close({ graceMs: 10_000 });
  const [answer] = await stream.until((event) => event.id === 2);
  assert.deepEqual(answer.result, { stopReason: "cancelled" });
  assert.equal(await stream.next(), undefined, "then the stream ends");
  await agent.closedCount(1);
});

test("an idle SSE stream carries keep-alive comments, which clients ignore", async () => {
  const { server: acp } = server({ keepAliveMs: 30 });
  const { connectionId } = await initialize(acp);
  const response = await send(acp, {
    method: "GET",
    headers: { accept: "text/event-stream", "acp-connection-id": connectionId },
  });
  const reader = response.body!.getReader();
  const { value } = await reader.read();
  assert.equal(new TextDecoder().decode(value), ":\n\n");
  await reader.cancel();
});
