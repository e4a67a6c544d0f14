/**
 * Ids through the Streamable HTTP profile: kept exactly as sent (beyond 2^53 too), and an id that is not a string,
 * a number or null refused at once with -32600, before a connection or an agent exists.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { AcpServer } from "./acp-server.js";
import { initialize, send } from "./testing/http-client.js";
import { testAgent } from "./testing/test-agent.js";

const servers: AcpServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

function setup() {
  const agent = testAgent();
  const acp = new AcpServer({ agent: agent.app });
  servers.push(acp);
  return { acp, agent };
}

const initializeText = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`;

test("initialize with an id beyond 2^53 is answered with that exact id", async () => {
  const { acp } = setup();
  const response = await send(acp, { rawBody: initializeText("12345678901234567890123") });
  assert.equal(response.status, 200);
  assert.match(await response.text(), /^\{"jsonrpc":"2\.0","id":12345678901234567890123,"result":/);
});

test("a request id beyond 2^53 comes back exactly on the stream; two that round alike stay apart", async () => {
  const { acp } = setup();
  const { connectionId } = await initialize(acp);
  const stream = await send(acp, {
    method: "GET",
    headers: { accept: "text/event-stream", "acp-connection-id": connectionId },
  });
  const reader = stream.body!.getReader();
  for (const id of ["9007199254740993", "9007199254740992"]) {
    const posted = await send(acp, {
      rawBody: `{"jsonrpc":"2.0","id":${id},"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`,
      headers: { "acp-connection-id": connectionId },
    });
    assert.equal(posted.status, 202);
  }
  let text = "";
  const decoder = new TextDecoder();
  while ((text.match(/"result"/g) ?? []).length < 2) text += decoder.decode((await reader.read()).value);
  await reader.cancel();
  const ids = [...text.matchAll(/"id":(\d+),"result"/g)].map((match) => match[1]);
  assert.deepEqual(ids.sort(), ["9007199254740992", "9007199254740993"]);
});

test("an id that is an object, an array, a boolean or out of range (1e400) is -32600 at once; no agent starts", async () => {
  for (const id of ["1e400", "-1e400", "{}", "[1]", "false"]) {
    const { acp, agent } = setup();
    const started = Date.now();
    const response = await send(acp, { rawBody: initializeText(id) });
    assert.equal(response.status, 400, id);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    assert.equal(body.error.code, -32600);
    assert.equal(body.id, null);
    assert.match(body.error.message, /the id must be a string, a number or null/);
    assert.ok(Date.now() - started < 1000, "at once, not after initializeTimeoutMs");
    assert.equal(agent.stats.connected, 0);
    assert.equal(acp.connectionCount, 0);
  }
  const { acp } = setup();
  const { connectionId } = await initialize(acp);
  const later = await send(acp, {
    rawBody: '{"jsonrpc":"2.0","id":{"x":1},"method":"session/new","params":{"cwd":"/","mcpServers":[]}}',
    headers: { "acp-connection-id": connectionId },
  });
  assert.equal(later.status, 400);
  assert.equal(((await later.json()) as { error: { code: number } }).error.code, -32600);
});
