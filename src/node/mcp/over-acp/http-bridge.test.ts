/**
 * `McpOverAcpHttpBridge` with real sockets: the MCP SDK's own client (Streamable HTTP) in an agent calls, through
 * the loopback endpoint, an MCP SDK server its client serves over ACP; and every refusal of the endpoint.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createMemoryPair } from "../../../transports/memory.js";
import { silentLogger } from "../../../jsonrpc/index.js";
import { unstableAgent } from "../../../agent/agent-app.js";
import { unstableClient } from "../../../client/client-app.js";
import { McpOverAcpCaller, McpOverAcpProvider } from "../../../acp/mcp/index.js";
import { fromMcpServer } from "./from-mcp-server.js";
import { McpOverAcpHttpBridge, type McpServerHttpDeclaration } from "./http-bridge.js";

function setup(options: ConstructorParameters<typeof McpOverAcpHttpBridge>[1] = {}) {
  const tools = fromMcpServer(() => {
    const server = new McpServer({ name: "project-tools", version: "1.0.0" });
    server.registerTool("add", { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    }));
    server.registerTool("count", { inputSchema: { to: z.number() } }, async ({ to }, extra) => {
      for (let i = 1; i <= to; i++) {
        if (extra._meta?.progressToken !== undefined)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: extra._meta.progressToken, progress: i, total: to },
          });
      }
      return { content: [{ type: "text", text: `counted to ${to}` }] };
    });
    return server;
  });
  const caller = new McpOverAcpCaller({ clientInfo: { name: "bridge-test", version: "1" } });
  const bridge = new McpOverAcpHttpBridge(caller, options);
  const provider = new McpOverAcpProvider();
  const [agentStream, clientStream] = createMemoryPair();
  const agentConnection = unstableAgent({ logger: silentLogger })
    .onNotification("mcp/message", caller.handleNotification)
    .connect(agentStream);
  const clientConnection = unstableClient({ logger: silentLogger })
    .onRequest("mcp/message", provider.handleRequest)
    .connect(clientStream);
  const registration = provider.registerServer(clientConnection.agent, {
    name: "project-tools",
    handler: tools.handler,
  });
  return { bridge, registration, agentSide: agentConnection.client, agentConnection, clientConnection };
}

const headersOf = (declaration: McpServerHttpDeclaration) =>
  Object.fromEntries(declaration.headers.map((h) => [h.name, h.value]));

test(
  "the MCP SDK client reaches a server served over ACP " + "through the loopback endpoint, progress included",
  async (t) => {
    const { bridge, registration, agentSide, clientConnection } = setup();
    t.after(() => clientConnection.close());
    const [http, stdio] = await bridge.adaptServers(agentSide, [
      registration.declaration,
      { name: "other", command: "x", args: [], env: [] },
    ]);
    assert.equal((stdio as { command: string }).command, "x", "other entries are unchanged");
    const declaration = http as McpServerHttpDeclaration;
    assert.equal(declaration.type, "http");
    assert.match(declaration.url, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.ok(!declaration.url.includes(headersOf(declaration).Authorization!.slice(7)), "the token is not in the URL");

    const client = new Client({ name: "agent-mcp-client", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(declaration.url), { requestInit: { headers: headersOf(declaration) } }),
    );
    assert.deepEqual(client.getServerVersion(), { name: "project-tools", version: "1.0.0" });
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ["add", "count"],
    );
    assert.deepEqual((await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })).content, [
      { type: "text", text: "42" },
    ]);
    const progress: number[] = [];
    const counted = await client.callTool({ name: "count", arguments: { to: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    assert.deepEqual(counted.content, [{ type: "text", text: "counted to 3" }]);
    assert.deepEqual(progress, [1, 2, 3]);
    await client.close();
  },
);

test(
  "the endpoint refuses wrong tokens, hosts, origins, methods, media types, batches, bodies over the limit; " +
    "closes with the connection",
  async (t) => {
    const { bridge, registration, agentSide, clientConnection } = setup({ maxRequestBodyBytes: 200 });
    t.after(() => clientConnection.close());
    const declaration = await bridge.toHttp(agentSide, registration.declaration);
    const good = {
      ...headersOf(declaration),
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const post = (headers: Record<string, string>, body = ping, method = "POST", url = declaration.url) =>
      fetch(url, { method, headers, ...(method === "POST" ? { body } : {}) });

    assert.equal((await post(good)).status, 200);
    assert.equal((await post({ ...good, Authorization: "Bearer AAAA" })).status, 401);
    const other = await bridge.toHttp(agentSide, { type: "acp", name: "x", serverId: "another" });
    assert.equal(
      (await post({ ...good, Authorization: headersOf(other).Authorization! })).status,
      401,
      "one server's token does not open another",
    );
    assert.equal((await post({ ...good, Origin: "https://evil.example" })).status, 403);
    assert.equal((await post(good, ping, "GET")).status, 405);
    assert.equal((await post({ ...good, Accept: "application/json" })).status, 406);
    assert.equal((await post({ ...good, "Content-Type": "text/plain" })).status, 415);
    assert.equal((await post(good, "[" + ping + "]")).status, 400);
    assert.equal((await post(good, "{not json")).status, 400);
    assert.equal(
      (
        await post(
          good,
          JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { pad: "x".repeat(300) } }),
        )
      ).status,
      413,
    );
    assert.equal(
      (await post(good, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).status,
      202,
    );
    const unknown = (await (await post(good, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "nope/x" }))).json()) as {
      error: { code: number };
    };
    assert.equal(unknown.error.code, -32601, "inner errors come back as the JSON-RPC error");

    clientConnection.close();
    await assert.rejects(post(good), "the listener closes with the ACP connection");
    await assert.rejects(bridge.toHttp(agentSide, registration.declaration), /connection is closed/);
  },
);
