/**
 * `acp agent` with a model: a real local HTTP server speaking the OpenAI chat-completions API with streamed
 * responses. Tokens stream as agent_message_chunk, reasoning as agent_thought_chunk, usage as usage_update; the
 * model's tool calls (assembled from deltas) run through the agent's tools; cancellation aborts the HTTP request.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type * as acp from "sdk-1.9";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { agentViolations, startRefAgent, text, type RefAgent } from "../fixtures/ref-harness.js";
import {
  content,
  finish,
  reasoning,
  startFakeModelServer,
  toolDelta,
  usage,
  type FakeModelServer,
} from "../fixtures/ref-model-server.js";

describe("acp agent with an OpenAI-compatible model endpoint", () => {
  let server: FakeModelServer;
  let agent: RefAgent & { init: acp.InitializeResponse };
  let root: string;
  let dataDir: string;
  let sessionId: string;

  before(async () => {
    root = makeTempDir("ref-model-ws-");
    dataDir = makeTempDir("ref-model-data-");
    writeFileSync(join(root, "notes.txt"), "alpha\nbeta\n");
    server = await startFakeModelServer();
    agent = await startRefAgent({
      root,
      dataDir,
      args: ["--model-url", server.url, "--model", "fake-coder"],
      env: { ACP_MODEL_KEY: "sk-test" },
    });
    const session = await agent.connection.newSession({ cwd: root, mcpServers: [] });
    sessionId = session.sessionId;
    assert.deepEqual(
      session.configOptions?.[0]?.type === "select" && session.configOptions[0].currentValue,
      "fake-coder",
    );
  });

  after(async () => {
    await agent?.stop();
    await server?.close();
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  it("streams reasoning and text, runs the model's tool calls through the agent's tools, reports usage", async () => {
    server.scripts.push(
      {
        chunks: [
          reasoning("I should read "),
          reasoning("the notes first."),
          toolDelta(0, { id: "call_read", name: "read_file", args: '{"pa' }),
          toolDelta(0, { args: 'th":"notes.txt"}' }),
          toolDelta(1, { id: "call_edit", name: "edit_file", args: '{"path":"notes.txt",' }),
          toolDelta(1, { args: '"old_text":"beta","new_text":"gamma"}' }),
          finish("tool_calls"),
          usage(100, 20),
        ],
      },
      {
        chunks: [
          content("The notes "),
          content("said alpha and beta; "),
          content("beta is now gamma."),
          finish("stop"),
          usage(180, 12),
        ],
      },
    );
    const from = agent.host.updates.length;
    const asked = agent.host.permissionRequests.length;
    const response = await agent.connection.prompt(text(sessionId, "Replace beta with gamma in notes.txt"));
    assert.equal(response.stopReason, "end_turn");
    const updates = agent.host.updates.slice(from).map((n) => n.update);
    const thoughts = updates.flatMap((u) =>
      u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? [u.content.text] : [],
    );
    assert.deepEqual(thoughts, ["I should read ", "the notes first."]);
    assert.equal(agent.host.said(sessionId, from), "The notes said alpha and beta; beta is now gamma.");
    const calls = updates.flatMap((u) => (u.sessionUpdate === "tool_call" ? [u] : []));
    assert.deepEqual(
      calls.map((c) => c.kind),
      ["read", "edit"],
    );
    assert.deepEqual(calls[1]!.content?.[0], {
      type: "diff",
      path: join(root, "notes.txt"),
      oldText: "alpha\nbeta\n",
      newText: "alpha\ngamma\n",
    });
    assert.equal(agent.host.permissionRequests.length, asked + 1, "ask mode asked before the edit");
    assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "alpha\ngamma\n");
    const usages = updates.flatMap((u) => (u.sessionUpdate === "usage_update" ? [u.used] : []));
    assert.deepEqual(usages, [120, 192]);

    assert.equal(server.requests.length, 2);
    const [first, second] = server.requests;
    assert.equal(first!.headers.authorization, "Bearer sk-test");
    assert.equal(first!.body.model, "fake-coder");
    assert.equal(first!.body.stream, true);
    assert.ok(first!.body.tools?.some((t) => t.function.name === "run_command"));
    const assistant = second!.body.messages.find((m) => m.role === "assistant") as {
      tool_calls: Array<{ id: string; function: { name: string; arguments: string } }>;
    };
    assert.deepEqual(
      assistant.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      [
        ["call_read", "read_file", { path: "notes.txt" }],
        ["call_edit", "edit_file", { path: "notes.txt", old_text: "beta", new_text: "gamma" }],
      ],
    );
    const toolResults = second!.body.messages.filter((m) => m.role === "tool");
    assert.equal(toolResults[0]!.tool_call_id, "call_read");
    assert.equal(toolResults[0]!.content, "alpha\nbeta\n");
  });

  it("session/cancel aborts the HTTP request at once and answers cancelled", async () => {
    server.scripts.push({ chunks: Array.from({ length: 2000 }, (_, i) => content(`t${i} `)), delayMs: 5 });
    const turn = agent.connection.prompt(text(sessionId, "Write a long story"));
    await agent.host.until(() => agent.host.said(sessionId).includes("t3 "), 5000, "the stream to start");
    const started = performance.now();
    await agent.connection.cancel({ sessionId });
    const response = await turn;
    assert.equal(response.stopReason, "cancelled");
    // The script streams for 10 s (2000 chunks, 5 ms apart): ending far sooner means the cancel cut it short.
    // A bound in seconds, not milliseconds, so a loaded machine does not fail the test (speed is the bench's job).
    assert.ok(
      performance.now() - started < 3000,
      `answered ${(performance.now() - started).toFixed(0)} ms after the cancel`,
    );
    const request = server.requests.at(-1)!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(request.abortedAt !== undefined, "the server saw the request aborted");
    assert.ok(
      request.abortedAt - started < 3000,
      `aborted ${(request.abortedAt - started).toFixed(1)} ms after the cancel`,
    );
    assert.deepEqual(
      request.body.messages.filter((m) => m.role === "user").map((m) => m.content),
      ["Replace beta with gamma in notes.txt", "Write a long story"],
      "the conversation carries over between turns",
    );
  });

  it("an endpoint error fails the turn with its message; every message the agent sent is schema-valid", async () => {
    await assert.rejects(agent.connection.prompt(text(sessionId, "no script left")), /HTTP 500/);
    const { report } = await agentViolations(agent.wire);
    assert.equal(report, "");
  });
});
