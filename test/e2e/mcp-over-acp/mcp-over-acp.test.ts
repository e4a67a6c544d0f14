/**
 * MCP-over-ACP end to end over real processes: a client serving an MCP server through ACP (`mcp/message`), an agent
 * process calling its tools; acpkit and the official SDK 2.4.0 in every pairing, and acpkit's agent also through
 * the HTTP bridge with the MCP SDK's own client. The acpkit client serves an `@modelcontextprotocol/sdk` `McpServer`
 * through `fromMcpServer`; the official client a hand-written MCP handler (its `fromMcpServer` needs
 * `@modelcontextprotocol/server`, not installed here). After the registration is disposed, the agent's call fails
 * with the binding's -33001 and the session carries on.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { spawnFixture } from "../interop/support/spawn.js";
import type { Impl } from "../interop/support/impl.js";

type Unstable = typeof import("@agentclientprotocol/sdk/unstable");
const loadUnstable = async (impl: Impl): Promise<Unstable> =>
  impl === "official"
    ? import("@agentclientprotocol/sdk/unstable")
    : ((await import(new URL("../../../src/entries/unstable.js", import.meta.url).href)) as Unstable);

/** A hand-written MCP server: discovery, `echo` with progress, as stateless MCP 2026-07-28 requests arrive. */
const handWritten: acp.McpRequestHandler = async ({ method, params, notify }) => {
  if (method === "server/discover")
    return { result: { serverInfo: { name: "hand-written", version: "1" }, capabilities: { tools: {} } } };
  if (method === "tools/list")
    return {
      result: {
        tools: [
          { name: "echo", inputSchema: { type: "object" } },
          { name: "shout", inputSchema: { type: "object" } },
        ],
      },
    };
  if (method === "tools/call" && params?.name === "echo") {
    const token = (params._meta as { progressToken?: string } | undefined)?.progressToken;
    for (let i = 1; i <= 2 && token !== undefined; i++)
      await notify("notifications/progress", { progressToken: token, progress: i, total: 2 });
    return {
      result: {
        content: [{ type: "text", text: `echo: ${String((params.arguments as { message: string }).message)}` }],
      },
    };
  }
  return { error: { code: -32601, message: `Method not found: ${method}` } };
};

async function sdkHandler(): Promise<acp.McpRequestHandler> {
  const { fromMcpServer } = (await import(
    new URL("../../../src/entries/experimental/mcp-server.js", import.meta.url).href
  )) as typeof import("../../../src/entries/experimental/mcp-server.js");
  return fromMcpServer(() => {
    const server = new McpServer({ name: "project-tools", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: { message: z.string() } }, async ({ message }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= 2 && token !== undefined; i++)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: 2 },
        });
      return { content: [{ type: "text", text: `echo: ${message}` }] };
    });
    server.registerTool("shout", { inputSchema: { message: z.string() } }, async ({ message }) => ({
      content: [{ type: "text", text: message.toUpperCase() }],
    }));
    return server;
  }).handler;
}

const PAIRINGS: Array<{ agent: Impl; client: Impl; via: "caller" | "http" }> = [
  { agent: "acpkit", client: "acpkit", via: "caller" },
  { agent: "acpkit", client: "official", via: "caller" },
  { agent: "official", client: "acpkit", via: "caller" },
  { agent: "official", client: "official", via: "caller" },
  { agent: "acpkit", client: "acpkit", via: "http" },
  { agent: "acpkit", client: "official", via: "http" },
];

for (const { agent, client, via } of PAIRINGS) {
  test(
    `MCP-over-ACP: ${client} client serving, ${agent} agent process calling ` +
      `(${via === "http" ? "MCP SDK client over the HTTP bridge" : "McpOverAcpCaller"})`,
    async (t) => {
      const sdk = await loadUnstable(client);
      const spawned = spawnFixture("mcp-over-acp-agent", agent, via === "http" ? { env: { MCP_VIA: "http" } } : {});
      t.after(() => spawned.stop());
      const said = new Map<string, string[]>();
      const provider = new sdk.McpOverAcpProvider();
      const app = sdk
        .client({ name: "mcp-test-client" })
        .onRequest(sdk.methods.client.mcp.message, provider.handleRequest)
        .onNotification(sdk.methods.client.session.update, ({ params }) => {
          if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text") {
            said.set(params.sessionId, [...(said.get(params.sessionId) ?? []), params.update.content.text]);
          }
        });
      const connection = app.connect(sdk.ndJsonStream(spawned.output, spawned.input));
      const handler = client === "acpkit" ? await sdkHandler() : handWritten;
      const registration = provider.registerServer(connection.agent, { name: "project-tools", handler });

      const init = await connection.agent.request(sdk.methods.agent.initialize, {
        protocolVersion: sdk.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      assert.equal(init.agentCapabilities?.mcpCapabilities?.acp, true);
      const { sessionId } = await connection.agent.request(sdk.methods.agent.session.new, {
        cwd: process.cwd(),
        mcpServers: [registration.declaration as acp.McpServer],
      });
      const turn = await connection.agent.request(sdk.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "hello over acp" }],
      });
      assert.equal(turn.stopReason, "end_turn");
      assert.deepEqual(
        said.get(sessionId),
        ["tools: echo,shout", "progress: 1", "progress: 2", "echo: hello over acp"],
        spawned.stderr(),
      );

      await registration.dispose();
      said.delete(sessionId);
      await connection.agent.request(sdk.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "again" }],
      });
      const [failure] = said.get(sessionId) ?? [];
      assert.match(
        failure ?? "",
        via === "http" ? /failed: .*(-33001|registration unavailable)/ : /^failed: -33001 /,
        spawned.stderr(),
      );
      connection.close();
    },
  );
}
