import assert from "node:assert/strict";
import { request } from "node:http";
import { test } from "node:test";
import { testAgent } from "../../remote/server/testing/test-agent.js";
import { generateToken, listenAcp } from "./listen.js";
import { defaultAllowedHosts, isLoopbackHost } from "./local-hosts.js";

test("listenAcp generates a token when none is given, and requires it", async () => {
  const listening = await listenAcp({ agent: testAgent().app });
  try {
    assert.equal(listening.tokenGenerated, true);
    assert.match(listening.token!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(listening.url, /^http:\/\/127\.0\.0\.1:\d+\/acp$/);
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    const refused = await fetch(listening.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: init,
    });
    assert.equal(refused.status, 401);
    const accepted = await fetch(listening.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${listening.token}` },
      body: init,
    });
    assert.equal(accepted.status, 200);
    assert.equal((await fetch(listening.url.replace("/acp", "/healthz"))).status, 200);
    // fetch will not send another Host: a DNS-rebinding page's request, as the server sees it, by hand.
    const rebound = await new Promise<number | undefined>((resolve, reject) => {
      const headers = {
        "content-type": "application/json",
        authorization: `Bearer ${listening.token}`,
        host: `attacker.example:${listening.port}`,
      };
      const sent = request(listening.url, { method: "POST", headers }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      sent.on("error", reject);
      sent.end(init);
    });
    assert.equal(rebound, 403, "a foreign Host is refused on a loopback server");
  } finally {
    await listening.close();
  }
});

test("a non-loopback address without a token is refused unless allowInsecure, which warns", async () => {
  await assert.rejects(
    listenAcp({ agent: testAgent().app, host: "0.0.0.0", insecureNoToken: true }),
    /refusing to serve on 0\.0\.0\.0 without a token/,
  );
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const listening = await listenAcp({
      agent: testAgent().app,
      host: "0.0.0.0",
      insecureNoToken: true,
      allowInsecure: true,
    });
    await listening.close();
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(warnings.some((warning) => /without a token/.test(warning.message)));
  } finally {
    process.off("warning", onWarning);
  }
  const loopback = await listenAcp({ agent: testAgent().app, insecureNoToken: true });
  assert.equal(loopback.token, undefined, "loopback without a token is allowed when asked for");
  await loopback.close();
});

test("helpers: loopback hosts, the default Host allow-list, tokens", () => {
  for (const host of ["127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3", "dev.localhost"])
    assert.equal(isLoopbackHost(host), true, host);
  for (const host of ["0.0.0.0", "::", "192.168.1.2", "example.com"]) assert.equal(isLoopbackHost(host), false, host);
  assert.ok(defaultAllowedHosts("192.168.1.2").includes("192.168.1.2"));
  assert.ok(defaultAllowedHosts("192.168.1.2").includes("localhost"));
  assert.ok(defaultAllowedHosts("0.0.0.0").includes("127.0.0.1"));
  assert.notEqual(generateToken(), generateToken());
});

/** One raw HTTP/1.0 request without a Host header (what HAProxy's `option httpchk GET /path` sends). */
async function rawHttp10(port: number, path: string): Promise<string> {
  const { connect } = await import("node:net");
  const socket = connect(port, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk) => (answer += chunk));
  socket.write(`GET ${path} HTTP/1.0\r\n\r\n`);
  await new Promise((resolve) => socket.on("close", resolve));
  return answer;
}

test("health and readiness answer an HTTP/1.0 check without a Host header; metrics need the token", async () => {
  const listening = await listenAcp({ agent: testAgent().app, token: "secret" });
  try {
    assert.match(await rawHttp10(listening.port, "/healthz"), /^HTTP\/1\.1 200 [^]*\r\n\r\nok\n$/);
    assert.match(await rawHttp10(listening.port, "/readyz"), /^HTTP\/1\.1 200 [^]*\r\n\r\nready\n$/);
    const base = listening.url.replace(/\/acp$/, "");
    const refused = await fetch(`${base}/metrics`);
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer secret" } });
    assert.match(await metrics.text(), /^acpkit_server_connections 0$/m);
  } finally {
    await listening.close();
  }
});

/** initialize, then session/new naming `mcpServers`, over real sockets; the answer to session/new. */
async function newSessionOver(url: string, token: string, mcpServers: unknown[]): Promise<any> {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  });
  assert.equal(init.status, 200);
  await init.arrayBuffer();
  const connection = { ...headers, "acp-connection-id": init.headers.get("acp-connection-id")! };
  const abort = new AbortController();
  const stream = await fetch(url, { headers: { ...connection, accept: "text/event-stream" }, signal: abort.signal });
  const posted = await fetch(url, {
    method: "POST",
    headers: connection,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/work", mcpServers } }),
  });
  assert.equal(posted.status, 202);
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const match = /data: (\{.*"id":1,.*\})\n/.exec(text);
    if (match) {
      abort.abort();
      return JSON.parse(match[1]!);
    }
    text += decoder.decode((await reader.read()).value);
  }
}

test("off loopback, listenAcp refuses client-named stdio MCP servers (-32602); on loopback they pass", async () => {
  const stdio = { name: "tools", command: "/bin/sh", args: ["-c", "true"], env: [] };
  const http = { type: "http", name: "web", url: "https://mcp.example/mcp", headers: [] };
  const wide = await listenAcp({ agent: testAgent().app, host: "0.0.0.0", token: "t0k" });
  try {
    const url = `http://127.0.0.1:${wide.port}/acp`;
    const refused = await newSessionOver(url, "t0k", [http, stdio]);
    assert.equal(refused.error?.code, -32602);
    assert.deepEqual(refused.error.data, { refused: ["tools"] });
    assert.match((await newSessionOver(url, "t0k", [http])).result.sessionId, /^sess-/, "URLs pass");
  } finally {
    await wide.close();
  }
  const local = await listenAcp({ agent: testAgent().app, token: "t0k" });
  try {
    assert.match((await newSessionOver(local.url, "t0k", [stdio])).result.sessionId, /^sess-/);
  } finally {
    await local.close();
  }
  const strict = await listenAcp({ agent: testAgent().app, token: "t0k", stdioMcpServers: "refuse" });
  try {
    assert.equal(
      (await newSessionOver(strict.url, "t0k", [stdio])).error?.code,
      -32602,
      "refused when asked, anywhere",
    );
  } finally {
    await strict.close();
  }
});
