import assert from "node:assert/strict";
import { after, test } from "node:test";
import { bearerSubprotocol } from "../http-protocol.js";
import { AcpServer } from "./acp-server.js";
import { createAcpServer } from "./create-acp-server.js";
import { constantTimeEqual, hostnameOf, isLoopbackAddress } from "./access.js";
import { initialize, initializeMessage, request, send, type Call } from "./testing/http-client.js";
import { testAgent } from "./testing/test-agent.js";

const servers: AcpServer[] = [];
function server(options: Record<string, unknown> = {}): AcpServer {
  const created = new AcpServer({ agent: testAgent().app, ...options });
  servers.push(created);
  return created;
}
after(() => Promise.all(servers.map((s) => s.close())));

const init = (headers: Record<string, string> = {}) => ({ body: initializeMessage(), headers });

test("no token: 401 with WWW-Authenticate: Bearer; a wrong token: 401 invalid_token; the right one: 200", async () => {
  const acp = server({ token: "s3cret-token" });
  const missing = await send(acp, init());
  assert.equal(missing.status, 401);
  assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="acp"');
  assert.match(await missing.text(), /Authorization: Bearer/);
  const wrong = await send(acp, init({ authorization: "Bearer s3cret-tokem" }));
  assert.equal(wrong.status, 401);
  assert.match(wrong.headers.get("www-authenticate")!, /invalid_token/);
  const prefix = await send(acp, init({ authorization: "Bearer s3cret" }));
  assert.equal(prefix.status, 401, "a prefix of the token is not the token");
  const basic = await send(acp, init({ authorization: "Basic czNjcmV0LXRva2Vu" }));
  assert.equal(basic.status, 401);
  const right = await send(acp, init({ authorization: "bearer s3cret-token" }));
  assert.equal(right.status, 200, "the scheme is case-insensitive");
  for (const method of ["GET", "DELETE"]) {
    const refused = await send(acp, {
      method,
      headers: { accept: "text/event-stream", "acp-connection-id": right.headers.get("acp-connection-id")! },
    });
    assert.equal(refused.status, 401, `${method} needs the token too`);
  }
});

test("several tokens may be valid at once (rotation)", async () => {
  const acp = server({ token: ["old-token", "new-token"] });
  assert.equal((await send(acp, init({ authorization: "Bearer old-token" }))).status, 200);
  assert.equal((await send(acp, init({ authorization: "Bearer new-token" }))).status, 200);
  assert.equal((await send(acp, init({ authorization: "Bearer other" }))).status, 401);
});

test("a connection is used only with the token it was opened with: another valid token gets 403, on every method", async () => {
  const acp = server({ token: ["alice-token", "bob-token"] });
  const { connectionId } = await initialize(acp, { authorization: "Bearer alice-token" });
  const as = (token: string, call: Call) =>
    send(acp, {
      ...call,
      headers: { authorization: `Bearer ${token}`, "acp-connection-id": connectionId, ...call.headers },
    });
  const newSession = { body: { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/w", mcpServers: [] } } };
  const stream = { method: "GET", headers: { accept: "text/event-stream" } };
  for (const call of [newSession, stream, { method: "DELETE" }] as Call[]) {
    const refused = await as("bob-token", call);
    assert.equal(refused.status, 403, `${call.method ?? "POST"} with the other token`);
    assert.match(await refused.text(), /opened with another credential.*present the token it was opened with/);
  }
  assert.equal((await as("alice-token", newSession)).status, 202, "its own token still works");
  const reading = await as("alice-token", stream);
  assert.equal(reading.status, 200);
  await reading.body?.cancel();
  assert.equal((await as("alice-token", { method: "DELETE" })).status, 202);
  // One token: bound all the same (the fingerprint is of the token, so nodes listing tokens differently agree).
  const single = server({ token: "only-token" });
  const opened = await initialize(single, { authorization: "Bearer only-token" });
  const posted = await send(single, {
    ...newSession,
    headers: { authorization: "Bearer only-token", "acp-connection-id": opened.connectionId },
  });
  assert.equal(posted.status, 202);
});

test("a foreign Origin is 403; no Origin, the server's own origin and listed origins pass", async () => {
  const acp = server({ allowedOrigins: ["https://app.example.com"] });
  const foreign = await send(acp, init({ origin: "https://evil.example" }));
  assert.equal(foreign.status, 403);
  assert.match(await foreign.text(), /evil\.example/);
  assert.equal((await send(acp, init({ origin: "null" }))).status, 403, "an opaque origin is foreign");
  assert.equal((await send(acp, init())).status, 200, "non-browser clients send no Origin");
  assert.equal((await send(acp, init({ origin: "http://127.0.0.1:8123" }))).status, 200, "same origin");
  const listed = await send(acp, init({ origin: "https://app.example.com" }));
  assert.equal(listed.status, 200);
  assert.equal(listed.headers.get("access-control-allow-origin"), "https://app.example.com");
  assert.equal(listed.headers.get("access-control-expose-headers"), "Acp-Connection-Id");
  const preflight = await send(acp, {
    method: "OPTIONS",
    headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
  });
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get("access-control-allow-headers")!, /Acp-Session-Id/);
  const foreignPreflight = await send(acp, { method: "OPTIONS", headers: { origin: "https://evil.example" } });
  assert.equal(foreignPreflight.status, 403);
});

test(
  "Host on a loopback socket: loopback names and the socket's address pass, any other name is 403 (DNS " + "rebinding)",
  async () => {
    const acp = server();
    assert.equal((await send(acp, init({ host: "evil.example:8123" }))).status, 403);
    assert.equal((await send(acp, init({ host: "127.0.0.1.nip.io:8123" }))).status, 403);
    for (const host of ["localhost:8123", "127.0.0.1:8123", "[::1]:8123", "LOCALHOST", "app.localhost:8123"]) {
      assert.equal((await send(acp, init({ host }))).status, 200, host);
    }
  },
);

test("a Host that is not host[:port] (RFC 3986) is 400 before any allow-list, even with allowedHosts any", async () => {
  for (const options of [{}, { allowedHosts: "any" }]) {
    const acp = server(options);
    for (const host of ["[::1].evil.example", "[::1]evil.example:8123", "127.0.0.1:8123/acp#", "user@127.0.0.1:8123"]) {
      const refused = await send(acp, init({ host }));
      assert.equal(refused.status, 400, host);
      assert.match(await refused.text(), /is not a host\[:port\]/);
    }
    assert.equal((await send(acp, init({ host: "[::1]:8123" }))).status, 200);
  }
  assert.equal(hostnameOf("[::1].evil.example"), undefined, "no host name is read out of it");
});

test('allowedOrigins "any" is refused without a token: any web page could run the agent', () => {
  assert.throws(() => new AcpServer({ agent: testAgent().app, allowedOrigins: "any" }), /needs a token/);
  assert.equal(server({ allowedOrigins: "any", token: "t" }).requiresToken, true);
});

test("Host on a non-loopback socket is not checked by default, and is when allowedHosts is given", async () => {
  const lan = { localAddress: "192.168.1.20", localPort: 8123, remoteAddress: "192.168.1.30" };
  const open = server();
  assert.equal((await open.handleRequest(request(init({ host: "agents.example.com" })), { socket: lan })).status, 200);
  const listed = server({ allowedHosts: ["agents.example.com", "192.168.1.20:8123"] });
  assert.equal(
    (await listed.handleRequest(request(init({ host: "agents.example.com" })), { socket: lan })).status,
    200,
  );
  assert.equal((await listed.handleRequest(request(init({ host: "192.168.1.20:8123" })), { socket: lan })).status, 200);
  assert.equal((await listed.handleRequest(request(init({ host: "192.168.1.20:9999" })), { socket: lan })).status, 403);
  assert.equal((await listed.handleRequest(request(init({ host: "evil.example" })), { socket: lan })).status, 403);
});

test(
  "a WebSocket upgrade is refused without the token and accepted with it in a header or the acp.bearer " +
    "subprotocol",
  async () => {
    const acp = server({ token: "tok/with+odd=chars" });
    const upgrade = (headers: Record<string, string>) =>
      request({ method: "GET", headers: { upgrade: "websocket", connection: "upgrade", ...headers } });
    const bare = acp.checkWebSocketUpgrade(upgrade({}), { localAddress: "127.0.0.1" });
    assert.equal(bare.ok, false);
    assert.equal(!bare.ok && bare.response.status, 401);
    const wrong = acp.checkWebSocketUpgrade(
      upgrade({ "sec-websocket-protocol": `acp, ${bearerSubprotocol("nope")}` }),
      {
        localAddress: "127.0.0.1",
      },
    );
    assert.equal(!wrong.ok && wrong.response.status, 401);
    const viaProtocol = acp.checkWebSocketUpgrade(
      upgrade({ "sec-websocket-protocol": `acp, ${bearerSubprotocol("tok/with+odd=chars")}` }),
      { localAddress: "127.0.0.1" },
    );
    assert.ok(viaProtocol.ok);
    assert.equal(viaProtocol.ok && viaProtocol.protocol, "acp", "acp is selected, never the bearer subprotocol");
    const onlyBearer = acp.checkWebSocketUpgrade(
      upgrade({ "sec-websocket-protocol": bearerSubprotocol("tok/with+odd=chars") }),
      { localAddress: "127.0.0.1" },
    );
    assert.ok(onlyBearer.ok);
    assert.equal(onlyBearer.ok && onlyBearer.protocol, undefined);
    const viaHeader = acp.checkWebSocketUpgrade(upgrade({ authorization: "Bearer tok/with+odd=chars" }), {
      localAddress: "127.0.0.1",
    });
    assert.ok(viaHeader.ok);
    const foreign = acp.checkWebSocketUpgrade(
      upgrade({ authorization: "Bearer tok/with+odd=chars", origin: "https://evil.example" }),
      { localAddress: "127.0.0.1" },
    );
    assert.equal(!foreign.ok && foreign.response.status, 403);
  },
);

test("createAcpServer refuses to be built without a token unless told insecureNoToken", () => {
  assert.throws(() => createAcpServer({ agent: testAgent().app }), /needs a bearer token/);
  const insecure = createAcpServer({ agent: testAgent().app, insecureNoToken: true });
  servers.push(insecure);
  assert.equal(insecure.requiresToken, false);
  const secure = createAcpServer({ agent: testAgent().app, token: "t" });
  servers.push(secure);
  assert.equal(secure.requiresToken, true);
  assert.throws(() => new AcpServer({ agent: testAgent().app, token: "" }), /must not be empty/);
});

test("helpers: constant-time comparison, loopback addresses, host names", () => {
  assert.equal(constantTimeEqual("abc", "abc"), true);
  assert.equal(constantTimeEqual("abd", "abc"), false);
  assert.equal(constantTimeEqual("ab", "abc"), false);
  assert.equal(constantTimeEqual("abcd", "abc"), false);
  assert.equal(constantTimeEqual("", "abc"), false);
  assert.equal(constantTimeEqual("ü", "ü"), true);
  for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "[::1]"])
    assert.equal(isLoopbackAddress(address), true, address);
  for (const address of ["0.0.0.0", "10.0.0.1", "::", "::ffff:10.0.0.1", "128.0.0.1"])
    assert.equal(isLoopbackAddress(address), false, address);
  assert.equal(hostnameOf("Example.COM:80"), "example.com");
  assert.equal(hostnameOf("[::1]:8080"), "::1");
  assert.equal(hostnameOf("localhost"), "localhost");
});
