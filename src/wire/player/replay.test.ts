/**
 * Record a conversation between a real acpkit agent and a real acpkit client in memory, then replay each side
 * against a fresh real peer: the agent's side to a client (barrier semantics, ids remapped), the client's side
 * to the agent (no differences) and to a changed agent (differences found, volatile fields ignored).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentSideConnection } from "../../agent/agent-side-connection.js";
import type { Agent } from "../../acp/agent-handler.js";
import type { Client } from "../../acp/client-handler.js";
import { ClientSideConnection } from "../../client/client-side-connection.js";
import { createMemoryByteStreams, createMemoryPair } from "../../transports/memory.js";
import { ndJsonStream } from "../../transports/ndjson.js";
import { readCassette } from "../cassette.js";
import { CassetteRecorder } from "../recorder.js";
import { scriptPeerOverWeb } from "../web-peer.js";
import { replayAgent } from "./replay-agent.js";
import { replayClient } from "./replay-client.js";

const CWD = "/work/recorded";

/** An agent with generated ids; `word` changes what it says; `extra` sends a thought first; `silent` stops short. */
function makeAgent(word: string, quirks: { extra?: boolean; silent?: boolean } = {}) {
  return (connection: AgentSideConnection): Agent => ({
    initialize: async () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: false },
      authMethods: [],
      agentInfo: { name: "test-agent", version: "1" },
    }),
    authenticate: async () => ({}),
    newSession: async () => ({ sessionId: `sess-${Math.random().toString(36).slice(2)}` }),
    cancel: async () => {},
    prompt: async (params) => {
      const toolCallId = `call-${Math.random().toString(36).slice(2)}`;
      if (quirks.extra)
        await connection.sessionUpdate({
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "an extra thought" } },
        });
      await connection.sessionUpdate({
        sessionId: params.sessionId,
        update: {
          sessionUpdate: "tool_call",
          toolCallId,
          title: "Read notes",
          kind: "read",
          status: "in_progress",
          locations: [{ path: `${CWD}/notes.txt` }],
        },
      });
      const file = await connection.readTextFile({ sessionId: params.sessionId, path: `${CWD}/notes.txt` });
      if (quirks.silent) return new Promise<never>(() => {}); // never finishes the turn
      await connection.sessionUpdate({
        sessionId: params.sessionId,
        update: { sessionUpdate: "tool_call_update", toolCallId, status: "completed" },
      });
      await connection.sessionUpdate({
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${word}: ${file.content}` } },
      });
      return { stopReason: "end_turn" };
    },
  });
}

/** A client that reads from an in-memory file and collects the text it is sent. */
function makeClient(seen: { text: string; reads: string[] }, content = "the notes"): () => Client {
  return () => ({
    requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
    sessionUpdate: async (n) => {
      if (n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text")
        seen.text += n.update.content.text;
    },
    readTextFile: async (p) => {
      seen.reads.push(p.path);
      return { content };
    },
  });
}

async function turn(client: ClientSideConnection, cwd: string): Promise<string> {
  await client.initialize({
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
  });
  const { sessionId } = await client.newSession({ cwd, mcpServers: [] });
  const response = await client.prompt({ sessionId, prompt: [{ type: "text", text: "read my notes" }] });
  return response.stopReason;
}

async function record(): Promise<string> {
  const lines: string[] = [];
  const recorder = new CassetteRecorder((line) => lines.push(line), { tool: { name: "test", version: "0" } });
  const [a, b] = createMemoryPair();
  new AgentSideConnection(makeAgent("hello"), a);
  const client = new ClientSideConnection(makeClient({ text: "", reads: [] }), b);
  client.tap(recorder.tapListener("client"));
  assert.equal(await turn(client, CWD), "end_turn");
  recorder.close();
  return lines.join("\n");
}

test("replay --as agent: a fresh client gets the recorded turn; its request ids and cwd are its own", async () => {
  const cassette = readCassette(await record());
  const [mine, theirs] = createMemoryByteStreams();
  const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "agent" });
  const playing = replayAgent(cassette, peer, { timeoutMs: 5000 });
  const seen = { text: "", reads: [] as string[] };
  const client = new ClientSideConnection(makeClient(seen), ndJsonStream(theirs.output, theirs.input));
  assert.equal(await turn(client, "/work/elsewhere"), "end_turn");
  const result = await playing;
  assert.equal(result.completed, true);
  assert.deepEqual(result.divergences, []);
  assert.equal(seen.text, "hello: the notes");
  assert.deepEqual(
    seen.reads,
    ["/work/elsewhere/notes.txt"],
    "recorded paths under the recorded cwd are moved to the live one",
  );
  assert.deepEqual(peer.checker.end(), [], "the replayed conversation breaks no rule");
});

test("replay --as agent: a client that strays is told, and the divergence says where", async () => {
  const cassette = readCassette(await record());
  const [mine, theirs] = createMemoryByteStreams();
  const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "agent" });
  const playing = replayAgent(cassette, peer, { timeoutMs: 2000 });
  const client = new ClientSideConnection(
    makeClient({ text: "", reads: [] }),
    ndJsonStream(theirs.output, theirs.input),
  );
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  await assert.rejects(client.listSessions({}), /the cassette has no answer to session\/list/);
  await client.newSession({ cwd: CWD, mcpServers: [] });
  const result = await playing;
  assert.equal(result.completed, false);
  assert.deepEqual(
    result.divergences.map((d) => d.kind),
    ["differs", "unexpected", "missing"],
  );
  assert.match(result.divergences[1]!.frame, /client session\/list/);
  assert.match(result.divergences[2]!.message, /session\/prompt .*did not come within 2000 ms/);
});

test("replay --as client: the same agent shows no difference; generated ids are volatile", async () => {
  const cassette = readCassette(await record());
  const [mine, theirs] = createMemoryByteStreams();
  new AgentSideConnection(makeAgent("hello"), ndJsonStream(theirs.output, theirs.input));
  const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "client" });
  const result = await replayClient(cassette, peer, { timeoutMs: 5000 });
  assert.deepEqual(result.divergences, []);
  assert.equal(result.completed, true);
  assert.equal(result.compared, cassette.entries.filter((e) => e.from === "agent").length);
});

test("replay --as client: a changed agent's differences are reported with their JSON path", async () => {
  const cassette = readCassette(await record());
  const [mine, theirs] = createMemoryByteStreams();
  new AgentSideConnection(makeAgent("goodbye"), ndJsonStream(theirs.output, theirs.input));
  const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "client" });
  const result = await replayClient(cassette, peer, { timeoutMs: 5000 });
  assert.equal(result.divergences.length, 1, JSON.stringify(result.divergences, null, 2));
  const [divergence] = result.divergences;
  assert.equal(divergence!.kind, "differs");
  assert.match(divergence!.frame, /agent session\/update agent_message_chunk/);
  assert.deepEqual(divergence!.differences, [
    { path: "$.params.update.content.text", expected: "hello: the notes", actual: "goodbye: the notes" },
  ]);
});

test(
  "replay --as agent: an id the recording's agent sent is fixed; a client answering with another is " + "told",
  async () => {
    const cassette = readCassette(await record());
    const [mine, theirs] = createMemoryByteStreams();
    const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "agent" });
    const playing = replayAgent(cassette, peer, { timeoutMs: 5000 });
    const client = new ClientSideConnection(
      makeClient({ text: "", reads: [] }),
      ndJsonStream(theirs.output, theirs.input),
    );
    await client.initialize({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    });
    const { sessionId } = await client.newSession({ cwd: CWD, mcpServers: [] });
    // The session id came from the replayed agent: prompting another session is a divergence, not a new id to learn.
    await client.prompt({ sessionId: `${sessionId}-other`, prompt: [{ type: "text", text: "read my notes" }] });
    const result = await playing;
    const prompt = result.divergences.find((d) => d.frame.includes("session/prompt"));
    assert.ok(prompt, JSON.stringify(result.divergences));
    assert.equal(prompt.kind, "differs");
    assert.deepEqual(prompt.differences, [
      { path: "$.params.sessionId", expected: sessionId, actual: `${sessionId}-other` },
    ]);
  },
);

test("replay --as agent: the client's answers to the agent's requests are compared too", async () => {
  const cassette = readCassette(await record());
  const [mine, theirs] = createMemoryByteStreams();
  const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "agent" });
  const playing = replayAgent(cassette, peer, { timeoutMs: 5000 });
  const client = new ClientSideConnection(
    makeClient({ text: "", reads: [] }, "other notes"),
    ndJsonStream(theirs.output, theirs.input),
  );
  assert.equal(await turn(client, CWD), "end_turn");
  const result = await playing;
  assert.equal(result.divergences.length, 1, JSON.stringify(result.divergences));
  assert.equal(result.divergences[0]!.kind, "differs");
  assert.match(result.divergences[0]!.frame, /client answer to fs\/read_text_file/);
  assert.deepEqual(result.divergences[0]!.differences, [
    { path: "$.result.content", expected: "the notes", actual: "other notes" },
  ]);
});

test("replay --as client: one extra frame of the agent is one divergence, and shifts nothing after it", async () => {
  const cassette = readCassette(await record());
  const [mine, theirs] = createMemoryByteStreams();
  new AgentSideConnection(makeAgent("hello", { extra: true }), ndJsonStream(theirs.output, theirs.input));
  const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "client" });
  // A wait of 10 minutes that the test's own timeout would cut: the replay must not need it.
  const result = await replayClient(cassette, peer, { timeoutMs: 600_000 });
  assert.deepEqual(
    result.divergences.map((d) => `${d.kind} ${d.frame}`),
    ["unexpected agent session/update agent_thought_chunk"],
  );
  assert.equal(result.completed, true);
});

test(
  "replay --as client: once the agent has strayed, a frame that does not come is missing after a short silence",
  { timeout: 60_000 },
  async () => {
    const cassette = readCassette(await record());
    const [mine, theirs] = createMemoryByteStreams();
    new AgentSideConnection(
      makeAgent("hello", { extra: true, silent: true }),
      ndJsonStream(theirs.output, theirs.input),
    );
    const peer = scriptPeerOverWeb(mine.input, mine.output, { side: "client" });
    const result = await replayClient(cassette, peer, { timeoutMs: 600_000, divergedTimeoutMs: 200 });
    const kinds = result.divergences.map((d) => `${d.kind} ${d.frame}`);
    assert.ok(kinds.includes("unexpected agent session/update agent_thought_chunk"), JSON.stringify(kinds));
    assert.ok(
      kinds.includes("missing agent session/update tool_call_update"),
      `the frames after the silence are missing: ${JSON.stringify(kinds)}`,
    );
    assert.match(result.divergences.find((d) => d.kind === "missing")!.message, /not received within 200 ms/);
  },
);
