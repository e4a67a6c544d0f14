import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { toolkitAgent, type ToolkitAgent } from "../../agent/toolkit/toolkit-agent.js";
import type { SessionNotification } from "../../protocol/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import * as unstable from "../../entries/unstable.js";
import { FileSessionStore } from "./file-session-store.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const cwd = "/work/project";

/** A toolkit agent on `store` behind the unstable connection pair; it echoes each prompt. */
async function connect(store: FileSessionStore) {
  const [agentEnd, clientEnd] = createMemoryPair();
  let agent!: ToolkitAgent;
  new unstable.AgentSideConnection(
    (conn) =>
      (agent = toolkitAgent(conn, {
        store,
        onPrompt: async (turn) => {
          await turn.say(`echo: ${turn.text}`);
          return "end_turn";
        },
      })),
    agentEnd,
  );
  const updates: SessionNotification[] = [];
  const client = new unstable.ClientSideConnection(
    () => ({
      sessionUpdate: (params) => void updates.push(params as SessionNotification),
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
    }),
    clientEnd,
  );
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  return { client, agent, updates };
}

const prompt = (sessionId: string, text: string) => ({ sessionId, prompt: [{ type: "text" as const, text }] });
const said = (updates: SessionNotification[], sessionId: string) =>
  updates.flatMap((n) =>
    n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
      ? [n.update.content.text]
      : [],
  );

test("FileSessionStore: a fork is its own append-only log, copied from the source, and survives a reopen", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "acpkit-fork-"));
  dirs.push(dir);
  const store = new FileSessionStore({ dir });
  const first = await connect(store);
  const { sessionId: source } = await first.client.newSession({ cwd, mcpServers: [] });
  await first.client.prompt(prompt(source, "one"));
  const forked = await first.client.unstable_forkSession({
    sessionId: source,
    cwd,
    additionalDirectories: ["/work/lib"],
  });
  const sourceLog = readFileSync(store.logPath(source)!);
  assert.deepEqual(
    readFileSync(store.logPath(forked.sessionId)!),
    sourceLog,
    "the fork's log starts as a byte copy of the source's records",
  );
  await first.client.prompt(prompt(forked.sessionId, "two"));
  await first.agent.sessions.get(forked.sessionId).flush();
  assert.deepEqual(readFileSync(store.logPath(source)!), sourceLog, "the source's log is untouched by the fork");
  await store.close();

  const reopened = new FileSessionStore({ dir });
  const meta = (await reopened.get(forked.sessionId))!;
  assert.equal(meta.cwd, cwd);
  assert.deepEqual(meta.additionalDirectories, ["/work/lib"]);
  const second = await connect(reopened);
  await second.client.loadSession({ sessionId: forked.sessionId, cwd, mcpServers: [] });
  assert.deepEqual(said(second.updates, forked.sessionId), ["echo: one", "echo: two"]);
  await second.client.loadSession({ sessionId: source, cwd, mcpServers: [] });
  assert.deepEqual(said(second.updates, source), ["echo: one"]);
  await assert.rejects(
    second.client.unstable_forkSession({ sessionId: "sess_gone", cwd }),
    (e: { code?: number }) => e.code === -32002,
  );
});
