/**
 * MCP-over-ACP with acpkit on both sides, in memory: a client serving an MCP SDK server (`fromMcpServer` behind an
 * `McpOverAcpProvider`), an agent calling it (`McpOverAcpCaller`); progress notifications, inner errors, binding
 * failures (unknown server, duplicate id, limit, handler crash, invalid outcome, disposal, cancellation).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createMemoryPair } from "../../../transports/memory.js";
import { silentLogger, RequestError } from "../../../jsonrpc/index.js";
import { unstableAgent } from "../../../agent/agent-app.js";
import { unstableClient } from "../../../client/client-app.js";
import {
  McpBindingErrorCode,
  McpOverAcpCaller,
  McpOverAcpProvider,
  McpProtocolError,
  MCP_META_PROTOCOL_VERSION,
  type McpNotification,
  type McpRequestHandler,
} from "../../../acp/mcp/index.js";
import { fromMcpServer } from "./from-mcp-server.js";

function projectTools() {
  const server = new McpServer({ name: "project-tools", version: "1.2.3" }, { instructions: "use echo" });
  server.registerTool("echo", { description: "echoes", inputSchema: { message: z.string() } }, async ({ message }) => ({
    content: [{ type: "text", text: `echo: ${message}` }],
  }));
  server.registerTool("slow", { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    for (let i = 1; i <= steps; i++) {
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps },
        });
    }
    return { content: [{ type: "text", text: `done after ${steps}` }] };
  });
  return server;
}

/** A client app serving `handler` as server "tools" and an agent app with a caller, connected in memory. */
function pair(handler: McpRequestHandler, options: { maxActiveRequests?: number } = {}) {
  const caller = new McpOverAcpCaller({ clientInfo: { name: "test-agent", version: "1" } });
  const provider = new McpOverAcpProvider();
  const [agentStream, clientStream] = createMemoryPair();
  const agentConnection = unstableAgent({ logger: silentLogger })
    .onNotification("mcp/message", caller.handleNotification)
    .connect(agentStream);
  const clientConnection = unstableClient({ logger: silentLogger })
    .onRequest("mcp/message", provider.handleRequest)
    .connect(clientStream);
  const registration = provider.registerServer(clientConnection.agent, { name: "tools", handler, ...options });
  return { caller, provider, registration, agentSide: agentConnection.client, clientConnection, agentConnection };
}

test("an agent lists and calls the tools of an MCP SDK server its client serves over ACP, with progress", async (t) => {
  const tools = fromMcpServer(() => projectTools());
  const { caller, registration, agentSide, clientConnection } = pair(tools.handler);
  t.after(() => clientConnection.close());
  assert.deepEqual(registration.declaration, { type: "acp", name: "tools", serverId: registration.serverId });

  const discovered = await caller.request(agentSide, registration.serverId, "server/discover");
  assert.ok("result" in discovered);
  assert.deepEqual((discovered.result as { serverInfo: unknown }).serverInfo, {
    name: "project-tools",
    version: "1.2.3",
  });
  assert.equal((discovered.result as { instructions: string }).instructions, "use echo");

  const listed = await caller.request(agentSide, registration.serverId, "tools/list", {});
  assert.ok("result" in listed);
  assert.deepEqual(
    (listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name),
    ["echo", "slow"],
  );

  const echoed = await caller.request(agentSide, registration.serverId, "tools/call", {
    name: "echo",
    arguments: { message: "hi" },
  });
  assert.deepEqual(echoed, { result: { content: [{ type: "text", text: "echo: hi" }] } });

  const progress: McpNotification[] = [];
  const slow = await caller.request(
    agentSide,
    registration.serverId,
    "tools/call",
    { name: "slow", arguments: { steps: 3 }, _meta: { progressToken: "p1" } },
    { onNotification: (n) => progress.push(n) },
  );
  assert.deepEqual(slow, { result: { content: [{ type: "text", text: "done after 3" }] } });
  assert.deepEqual(
    progress.map((n) => [n.method, n.params?.progress]),
    [
      ["notifications/progress", 1],
      ["notifications/progress", 2],
      ["notifications/progress", 3],
    ],
  );

  const unknownTool = await caller.request(agentSide, registration.serverId, "tools/call", {
    name: "nope",
    arguments: {},
  });
  assert.ok(
    "result" in unknownTool && (unknownTool.result as { isError?: boolean }).isError,
    "an unknown tool is an MCP tool error",
  );
  const unknownMethod = await caller.request(agentSide, registration.serverId, "prompts/list", {});
  assert.ok("error" in unknownMethod && unknownMethod.error.code === -32601, "inner MCP errors travel in the carrier");
  await tools.close();
});

test("the low-level Server of the MCP SDK is served too (its type fits the structural McpSdkServer)", async (t) => {
  const tools = fromMcpServer(() => {
    const server = new Server({ name: "low-level", version: "0.1.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: "ping", inputSchema: { type: "object" as const } }],
    }));
    return server;
  });
  const { caller, registration, agentSide, clientConnection } = pair(tools.handler);
  t.after(() => clientConnection.close());
  const discovered = await caller.request(agentSide, registration.serverId, "server/discover");
  assert.ok("result" in discovered);
  assert.deepEqual((discovered.result as { serverInfo: unknown }).serverInfo, { name: "low-level", version: "0.1.0" });
  const listed = await caller.request(agentSide, registration.serverId, "tools/list", {});
  assert.ok("result" in listed);
  assert.deepEqual(
    (listed.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name),
    ["ping"],
  );
});

test("binding failures are outer ACP errors with the binding's codes; inner errors stay inner", async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const handler: McpRequestHandler = async ({ method, params, signal }) => {
    if (method === "hold") {
      await Promise.race([
        held,
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
      ]);
      return { result: null };
    }
    if (method === "forever")
      return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    if (method === "inner") throw new McpProtocolError(-32001, "tool exploded", { why: 1 });
    if (method === "crash") throw new Error("disk on fire");
    if (method === "acp-error") throw new RequestError(-32000, "auth required");
    if (method === "bad") return { result: 1, error: { code: 1, message: "both" } } as never;
    return { result: params ?? null };
  };
  const { caller, registration, agentSide, clientConnection } = pair(handler, { maxActiveRequests: 1 });
  t.after(() => clientConnection.close());
  const id = registration.serverId;

  assert.deepEqual(await caller.request(agentSide, id, "inner"), {
    error: { code: -32001, message: "tool exploded", data: { why: 1 } },
  });
  await assert.rejects(caller.request(agentSide, "no-such-server", "x"), {
    code: McpBindingErrorCode.serverUnavailable,
  });
  await assert.rejects(
    caller.request(agentSide, id, "crash"),
    (error: RequestError) => error.code === -33002 && (error.data as { details: string }).details === "disk on fire",
  );
  await assert.rejects(
    caller.request(agentSide, id, "acp-error"),
    (error: RequestError) => error.code === -33002 && (error.data as { code: number }).code === -32000,
  );
  await assert.rejects(caller.request(agentSide, id, "bad"), { code: -33002, message: /invalid outcome/ });

  // Missing or wrong MCP metadata is an inner error.
  const wrongVersion = await caller.request(agentSide, id, "echo", {
    _meta: { [MCP_META_PROTOCOL_VERSION]: "2025-06-18" },
  });
  assert.ok("error" in wrongVersion && wrongVersion.error.code === -32022);

  // One active request allowed: a second is over the limit; the same request id twice is refused by the caller.
  const holding = caller.request(agentSide, id, "hold", null, { requestId: "r1" });
  await new Promise((resolve) => setImmediate(resolve));
  await assert.rejects(caller.request(agentSide, id, "echo"), { code: McpBindingErrorCode.resourceLimitExceeded });
  await assert.rejects(caller.request(agentSide, id, "echo", null, { requestId: "r1" }), /already active/);
  release();
  assert.deepEqual(await holding, { result: null });

  // Cancelling the outer request cancels the handler: -32800.
  const controller = new AbortController();
  const cancelled = caller.request(agentSide, id, "forever", null, { signal: controller.signal });
  await new Promise((resolve) => setImmediate(resolve));
  controller.abort();
  await assert.rejects(cancelled, { code: -32800 });

  // After disposal the server is unavailable, and its id cannot be registered again.
  await registration.dispose();
  await assert.rejects(caller.request(agentSide, id, "echo"), { code: McpBindingErrorCode.serverUnavailable });
});

test("disposing a registration cancels its active requests and waits for them", async (t) => {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let sawAbort = false;
  const handler: McpRequestHandler = ({ signal }) =>
    new Promise((_, reject) => {
      started();
      signal.addEventListener(
        "abort",
        () => {
          sawAbort = true;
          reject(signal.reason);
        },
        { once: true },
      );
    });
  const { caller, provider, registration, agentSide, clientConnection } = pair(handler);
  t.after(() => clientConnection.close());
  const pending = caller.request(agentSide, registration.serverId, "wait");
  await running;
  await registration.dispose();
  assert.equal(sawAbort, true);
  await assert.rejects(pending, { code: -32800 });
  assert.throws(
    () => provider.registerServer(clientConnection.agent, { name: "again", serverId: registration.serverId, handler }),
    /already registered/,
  );
  assert.throws(() => provider.registerServer({} as never, { name: "x", handler }), /ACP app context/);
});
