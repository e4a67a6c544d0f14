import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { McpServer } from "../../src/protocol/index.js";
import { connectToolkit, until } from "../../src/agent/toolkit/testing/harness.js";
import type { ToolkitAgentOptions } from "../../src/agent/toolkit/toolkit-agent.js";
import { createMcpConnector, McpConnections } from "../../src/node/mcp/mcp-servers.js";
import { processAlive as alive, startHttpMcpServer, type HttpMcpServer } from "./fixtures/mcp-servers.js";

const fixture = fileURLToPath(new URL("./fixtures/mcp-servers.js", import.meta.url));
const cwd = "/tmp";
const stdio = (name: string, flag: string): McpServer => ({
  name,
  command: process.execPath,
  args: [fixture, flag],
  env: [{ name: "FIXTURE_GREETING", value: "hi" }],
});

let http: HttpMcpServer;
before(async () => (http = await startHttpMcpServer()));
after(() => http.close());

const textOf = (result: { content: Array<Record<string, unknown>> }) => result.content.map((c) => c.text).join("");

function agentOptions(results: string[]): ToolkitAgentOptions<unknown> {
  return {
    mcp: createMcpConnector({ startupTimeoutMs: 10_000 }),
    onPrompt: async (turn) => {
      const mcp = turn.session.mcp!;
      for (const tool of mcp.tools().filter((t) => t.name === "echo")) {
        results.push(textOf(await mcp.callTool(tool.server, "echo", { text: turn.text }, { signal: turn.signal })));
      }
      const sum = await mcp.callTool("local", "add", { a: 2, b: 3 });
      results.push(JSON.stringify(sum.structuredContent));
      await turn.say("done");
    },
  };
}

test(
  "stdio, Streamable HTTP and SSE servers: tools listed and called; the stdio process is gone after " + "session/close",
  async () => {
    const results: string[] = [];
    const h = await connectToolkit(agentOptions(results));
    const init = await h.client.initialize({ protocolVersion: 1, clientCapabilities: {} });
    assert.deepEqual(init.agentCapabilities!.mcpCapabilities, { http: true, sse: true });
    const auth = [{ name: "Authorization", value: "Bearer secret-token" }];
    const { sessionId } = await h.client.newSession({
      cwd,
      mcpServers: [
        stdio("local", "--stdio"),
        { type: "http", name: "remote", url: `${http.url}/mcp`, headers: auth },
        { type: "sse", name: "legacy", url: `${http.url}/sse`, headers: auth },
      ],
    });
    const session = h.agent.sessions.get(sessionId);
    const servers = session.mcp!.servers;
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.state, s.error]),
      [
        ["local", "stdio", "connected", undefined],
        ["remote", "http", "connected", undefined],
        ["legacy", "sse", "connected", undefined],
      ],
    );
    assert.deepEqual(
      session.mcp!.tools().map((t) => `${t.server}/${t.name}`),
      ["local/echo", "local/add", "remote/echo", "remote/add", "legacy/echo", "legacy/add"],
    );
    assert.equal(session.mcp!.tools()[0]!.description, "Echoes its text");
    assert.ok(
      http.authorizations.length > 0 && http.authorizations.every((a) => a === "Bearer secret-token"),
      "headers reach the server",
    );

    assert.deepEqual(await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "ping" }] }), {
      stopReason: "end_turn",
    });
    assert.deepEqual(results, ["stdio: ping (hi)", "http: ping", "sse: ping", '{"sum":5}']);
    assert.ok(
      h.updates.every((n) => n.update.sessionUpdate !== "agent_message_chunk" || !/MCP/.test(JSON.stringify(n.update))),
      "no failure notice",
    );

    const pid = servers[0]!.pid!;
    assert.ok(alive(pid));
    await h.client.closeSession({ sessionId });
    await until(() => !alive(pid), 6000, "the stdio MCP server to exit");
    await assert.rejects(session.mcp!.callTool("local", "add", { a: 1, b: 1 }), /not connected \(closed\)/);
  },
);

test("a server that fails to start is reported in the session; the others and the session still work", async () => {
  const results: string[] = [];
  const h = await connectToolkit(agentOptions(results));
  const { sessionId } = await h.client.newSession({
    cwd,
    mcpServers: [
      stdio("broken", "--fail"),
      { name: "missing", command: "/nonexistent/mcp-server", args: [], env: [] },
      stdio("local", "--stdio"),
    ],
  });
  await until(
    () => h.updates.some((n) => n.update.sessionUpdate === "agent_message_chunk"),
    2000,
    "the failure notice",
  );
  const notice = (
    h.updates.find((n) => n.update.sessionUpdate === "agent_message_chunk")!.update as { content: { text: string } }
  ).content.text;
  assert.match(notice, /Some MCP servers could not be started/);
  assert.match(notice, /broken \(stdio\): .*cannot open the database/);
  assert.match(notice, /missing \(stdio\): .*ENOENT/);
  const servers = h.agent.sessions.get(sessionId).mcp!.servers;
  assert.deepEqual(
    servers.map((s) => s.state),
    ["failed", "failed", "connected"],
  );

  assert.deepEqual(await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "still here" }] }), {
    stopReason: "end_turn",
  });
  assert.deepEqual(results, ["stdio: still here (hi)", '{"sum":5}']);
  await assert.rejects(h.agent.sessions.get(sessionId).mcp!.callTool("broken", "echo", {}), /not connected \(failed: /);

  // The connection ending closes the servers too.
  const pid = servers[2]!.pid!;
  h.client.close();
  await until(() => !alive(pid), 6000, "the stdio MCP server to exit after the connection ended");
});

test("a server that does not answer within the startup timeout fails; transports can be turned off", async () => {
  const hang: McpServer = {
    name: "silent",
    command: process.execPath,
    args: ["-e", "setInterval(() => {}, 1000)"],
    env: [],
  };
  const started = Date.now();
  const connections = await McpConnections.connect(
    [hang, { type: "http", name: "remote", url: `${http.url}/mcp`, headers: [] }],
    { startupTimeoutMs: 300, http: false },
  );
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(
    connections.servers.map((s) => s.state),
    ["failed", "failed"],
  );
  assert.match(connections.servers[0]!.error!, /timed out|within 300 ms/i);
  assert.match(connections.servers[1]!.error!, /HTTP MCP servers are not supported/);
  await connections.close();
  assert.deepEqual(createMcpConnector({ sse: false }).capabilities, { http: true, sse: false });
});
