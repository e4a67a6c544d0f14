/**
 * A toolkit agent (`toolkitAgent` with `createMcpConnector({ acp: true })`, on `@acpkit/sdk/unstable`'s 1.x
 * `AgentSideConnection`) using an MCP server its client serves over ACP: advertised in `mcpCapabilities.acp`,
 * connected at `session/new` like any server (listed tools, `transport: "acp"`), called from a turn;
 * without `acp` the server is reported failed with the reason, and the session carries on.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { createMemoryPair } from "../../../transports/memory.js";
import { silentLogger } from "../../../jsonrpc/index.js";
import * as unstable from "../../../entries/unstable.js";
import { toolkitAgent } from "../../../agent/toolkit/toolkit-agent.js";
import type { McpSessionTools } from "../../../agent/toolkit/mcp-connector.js";
import { createMcpConnector } from "../mcp-servers.js";
import { fromMcpServer } from "./from-mcp-server.js";

async function run(acp: boolean) {
  const [agentEnd, clientEnd] = createMemoryPair();
  let sessionTools: McpSessionTools | undefined;
  new unstable.AgentSideConnection(
    (conn) =>
      toolkitAgent(conn, {
        mcp: createMcpConnector({ acp, logger: silentLogger, clientInfo: { name: "toolkit-agent", version: "1" } }),
        onPrompt: async (turn) => {
          sessionTools = turn.session.mcp;
          const result = await turn.session.mcp!.callTool("project-tools", "count", { to: 2 });
          await turn.say(String((result.content[0] as { text: string }).text));
          return { stopReason: "end_turn" };
        },
      }),
    agentEnd,
    { logger: silentLogger },
  );
  const tools = fromMcpServer(() => {
    const server = new McpServer({ name: "project-tools", version: "1" });
    server.registerTool("count", { description: "counts", inputSchema: { to: z.number() } }, async ({ to }, extra) => {
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
  const provider = new unstable.McpOverAcpProvider();
  const said: string[] = [];
  const connection = unstable
    .client({ logger: silentLogger })
    .onRequest("mcp/message", provider.handleRequest)
    .onNotification("session/update", ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text")
        said.push(params.update.content.text);
    })
    .connect(clientEnd);
  const registration = provider.registerServer(connection.agent, { name: "project-tools", handler: tools.handler });
  const init = await connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return { connection, registration, init, said, tools: () => sessionTools };
}

test("a toolkit agent connects and calls a server its client serves over ACP", async (t) => {
  const { connection, registration, init, said, tools } = await run(true);
  t.after(() => connection.close());
  assert.equal(init.agentCapabilities?.mcpCapabilities?.acp, true);
  const { sessionId } = await connection.agent.request("session/new", {
    cwd: "/work/project",
    mcpServers: [registration.declaration],
  });
  await connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "count" }] });
  assert.deepEqual(said, ["counted to 2"]);
  const [status] = tools()!.servers;
  assert.deepEqual(
    {
      name: status!.name,
      transport: status!.transport,
      state: status!.state,
      tools: status!.tools.map((tool) => tool.name),
    },
    {
      name: "project-tools",
      transport: "acp",
      state: "connected",
      tools: ["count"],
    },
  );
});

test("without acp the agent does not advertise it and reports the server failed, saying why", async (t) => {
  const { connection, registration, init, tools } = await run(false);
  t.after(() => connection.close());
  assert.notEqual(init.agentCapabilities?.mcpCapabilities?.acp, true);
  const { sessionId } = await connection.agent.request("session/new", {
    cwd: "/work/project",
    mcpServers: [registration.declaration],
  });
  await assert.rejects(
    connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "count" }] }),
  );
  const [status] = tools()!.servers;
  assert.equal(status!.state, "failed");
  assert.match(status!.error!, /not supported by this agent \(mcpCapabilities\.acp is off\)/);
});
