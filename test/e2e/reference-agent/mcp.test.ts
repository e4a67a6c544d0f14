/**
 * `acp agent` with real MCP servers (built with the MCP TypeScript SDK, `../fixtures/mcp-servers.ts`), driven by the
 * official SDK's client: `mcpCapabilities` advertised, one stdio and one Streamable HTTP server (plus one that fails
 * to start) connected at session/new, `/mcp` lists them with their tools (and the failure with its reason),
 * `/mcp-call` calls a tool of each inside an ACP tool call, and `session/close` stops the stdio server's process.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import type * as acp from "sdk-1.9";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { agentViolations, promptIn, startRefAgent, type RefAgent } from "../fixtures/ref-harness.js";
import { processAlive as alive, startHttpMcpServer, type HttpMcpServer } from "../fixtures/mcp-servers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-servers.js", import.meta.url));

describe("acp agent: the session's MCP servers", () => {
  let agent: RefAgent & { init: acp.InitializeResponse };
  let http: HttpMcpServer;
  let root: string;
  let dataDir: string;
  let sessionId: string;

  const prompt = (value: string) => promptIn(agent, sessionId, value);

  before(async () => {
    root = makeTempDir("ref-mcp-ws-");
    dataDir = makeTempDir("ref-mcp-data-");
    http = await startHttpMcpServer();
    agent = await startRefAgent({ root, dataDir });
    const created = await agent.connection.newSession({
      cwd: root,
      mcpServers: [
        {
          name: "local",
          command: process.execPath,
          args: [FIXTURE, "--stdio"],
          env: [{ name: "FIXTURE_GREETING", value: "from env" }],
        },
        {
          type: "http",
          name: "remote",
          url: `${http.url}/mcp`,
          headers: [{ name: "Authorization", value: "Bearer acp-test" }],
        },
        { name: "broken", command: process.execPath, args: [FIXTURE, "--fail"], env: [] },
      ],
    });
    sessionId = created.sessionId;
  });

  after(async () => {
    await agent?.stop();
    await http?.close();
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  it("advertises the MCP transports the connector supports", () => {
    assert.deepEqual(agent.init.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
  });

  it("/mcp lists both servers with their tools, and the failed one with its error", async () => {
    const { said } = await prompt("/mcp");
    assert.match(said, /- local \(stdio, pid \d+\): 2 tools\n {2}- echo: Echoes its text\n {2}- add: Adds two numbers/);
    assert.match(said, /- remote \(http\): 2 tools\n {2}- echo: Echoes its text\n {2}- add: Adds two numbers/);
    assert.match(said, /- broken \(stdio\): failed: .*cannot open the database/);
  });

  it("/mcp-call over stdio and over HTTP returns the tool's result inside a tool call", async () => {
    const local = await prompt('/mcp-call local echo {"text":"ping"}');
    assert.match(local.said, /local\/echo returned: stdio: ping \(from env\)/);
    const call = local.updates.find((u) => u.sessionUpdate === "tool_call");
    assert.ok(call?.sessionUpdate === "tool_call" && call.kind === "other" && call.title === "local: echo");
    const done = local.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    assert.deepEqual(done?.sessionUpdate === "tool_call_update" && done.content, [
      { type: "content", content: { type: "text", text: "stdio: ping (from env)" } },
    ]);

    const remote = await prompt('/mcp-call remote add {"a":2,"b":3}');
    assert.match(remote.said, /remote\/add returned: 5/);
    assert.ok(
      remote.updates.some(
        (u) =>
          u.sessionUpdate === "tool_call_update" &&
          u.status === "completed" &&
          JSON.stringify(u.content).includes('"5"'),
      ),
    );
    assert.ok(http.authorizations.includes("Bearer acp-test"), "the client's headers reach the HTTP server");
  });

  it("a failing call (unknown tool, failed server) ends its tool call as failed", async () => {
    for (const line of ["/mcp-call remote nope {}", '/mcp-call broken echo {"text":"x"}']) {
      const { said, updates, response } = await prompt(line);
      assert.equal(response.stopReason, "end_turn");
      assert.match(said, /failed/);
      assert.ok(
        updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed"),
        line,
      );
    }
  });

  it("session/close stops the stdio server's process", async () => {
    const pid = Number(/local \(stdio, pid (\d+)\)/.exec((await prompt("/mcp")).said)?.[1]);
    assert.ok(pid > 0 && alive(pid), "the stdio server runs");
    await agent.connection.closeSession({ sessionId });
    const deadline = Date.now() + 5000;
    while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.throws(() => process.kill(pid, 0), "the stdio server's process is gone");
  });

  it("every message the agent sent is schema-valid", async () => {
    const { report } = await agentViolations(agent.wire);
    assert.equal(report, "");
  });
});
