/**
 * The reference agent (`acp agent --unstable`, a real process) using an MCP server its client serves over ACP:
 * advertised in `mcpCapabilities.acp`, listed by `/mcp` as an `acp` server with its tools, called by `/mcp-call` inside
 * an ACP tool call. The client is acpkit's (serving an `@modelcontextprotocol/sdk` server through `fromMcpServer`) or
 * the official SDK 2.4.0's (serving a hand-written MCP handler).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { test } from "node:test";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { CLI } from "../fixtures/ref-harness.js";
import { track } from "../interop/support/spawn.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import type { Impl } from "../interop/support/impl.js";

type Unstable = typeof import("@agentclientprotocol/sdk/unstable");
const loadUnstable = async (impl: Impl): Promise<Unstable> =>
  impl === "official"
    ? import("@agentclientprotocol/sdk/unstable")
    : ((await import(new URL("../../../src/entries/unstable.js", import.meta.url).href)) as Unstable);

const handWritten: acp.McpRequestHandler = ({ method, params }) => {
  if (method === "server/discover")
    return { result: { serverInfo: { name: "hand-written", version: "1" }, capabilities: { tools: {} } } };
  if (method === "tools/list")
    return {
      result: {
        tools: [
          {
            name: "echo",
            description: "Echoes its text",
            inputSchema: { type: "object", properties: { text: { type: "string" } } },
          },
        ],
      },
    };
  if (method === "tools/call")
    return {
      result: {
        content: [{ type: "text", text: `over acp: ${String((params?.arguments as { text?: string }).text)}` }],
      },
    };
  return { error: { code: -32601, message: `Method not found: ${method}` } };
};

async function sdkHandler(): Promise<acp.McpRequestHandler> {
  const { fromMcpServer } = (await import(
    new URL("../../../src/entries/experimental/mcp-server.js", import.meta.url).href
  )) as typeof import("../../../src/entries/experimental/mcp-server.js");
  return fromMcpServer(() => {
    const server = new McpServer({ name: "sdk-tools", version: "1" });
    server.registerTool(
      "echo",
      { description: "Echoes its text", inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: "text", text: `over acp: ${text}` }] }),
    );
    return server;
  }).handler;
}

for (const impl of ["acpkit", "official"] as const) {
  test(`the reference agent lists and calls the tools of a server a ${impl} client serves over ACP`, async (t) => {
    const dataDir = makeTempDir("ref-mcp-acp-");
    const child = spawn(process.execPath, [CLI, "agent", "--unstable", "--data-dir", dataDir], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    track(child);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    t.after(() => {
      child.kill("SIGKILL");
      removeTempDir(dataDir);
    });
    const sdk = await loadUnstable(impl);
    const provider = new sdk.McpOverAcpProvider();
    const said: string[] = [];
    const updates: string[] = [];
    const connection = sdk
      .client({ name: "ref-mcp-client" })
      .onRequest(sdk.methods.client.mcp.message, provider.handleRequest)
      .onNotification(sdk.methods.client.session.update, ({ params }) => {
        updates.push(params.update.sessionUpdate);
        if (params.update.sessionUpdate === "agent_message_chunk" && params.update.content.type === "text")
          said.push(params.update.content.text);
      })
      .connect(
        sdk.ndJsonStream(
          Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
        ),
      );
    const registration = provider.registerServer(connection.agent, {
      name: "client-tools",
      handler: impl === "acpkit" ? await sdkHandler() : handWritten,
    });

    const init = await connection.agent.request(sdk.methods.agent.initialize, {
      protocolVersion: sdk.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    assert.equal(init.agentCapabilities?.mcpCapabilities?.acp, true);
    const { sessionId } = await connection.agent.request(sdk.methods.agent.session.new, {
      cwd: dataDir,
      mcpServers: [registration.declaration as acp.McpServer],
    });
    const ask = async (text: string) => {
      said.length = 0;
      updates.length = 0;
      await connection.agent.request(sdk.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
      return said.join("");
    };
    assert.match(await ask("/mcp"), /- client-tools \(acp\): 1 tools?\n {2}- echo: Echoes its text/, stderr);
    assert.match(
      await ask('/mcp-call client-tools echo {"text":"ping"}'),
      /client-tools\/echo returned: over acp: ping/,
      stderr,
    );
    assert.ok(updates.includes("tool_call") && updates.includes("tool_call_update"));
    connection.close();
  });
}
