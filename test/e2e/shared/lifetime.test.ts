/**
 * How long a shared session's agent outlives the client that opened it: by default while a controller remains;
 * with `keepAlive: "participant"` while anyone remains (an observer too); `lingerMs` after the last one leaves, in
 * which a client can still attach.
 */
import assert from "node:assert/strict";
import { after, it } from "node:test";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant, type TestParticipant } from "./support/participants.js";

const TOKEN = "lifetime-token";
const servers: ListeningAcpServer[] = [];
const open: TestParticipant[] = [];
after(async () => {
  for (const participant of open) participant.close();
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(sharedSessions: { keepAlive?: "controller" | "participant"; lingerMs?: number }) {
  const server = await listenAcp({ agent: sharedTestAgent(), token: TOKEN, sharedSessions });
  servers.push(server);
  const target = { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN };
  const join = async (name: string) => {
    const participant = await acpkitParticipant(name, target, "websocket");
    open.push(participant);
    return participant;
  };
  return { server, join };
}

const ended = (participant: TestParticipant) =>
  participant.notifications.some((note) => note.method === "_acpkit/session/ended");

it(
  "keepAlive participant: an observer keeps the agent; it ends when the observer leaves",
  { timeout: 60_000 },
  async () => {
    const { server, join } = await serve({ keepAlive: "participant" });
    const owner = await join("owner");
    const { sessionId } = await owner.request("session/new", { cwd: "/tmp", mcpServers: [] });
    const watcher = await join("watcher");
    await watcher.request("session/attach", { sessionId, role: "observer" });
    owner.close();
    // The server notices the close when it does (under load, later than any fixed wait): then the session goes on.
    for (let i = 0; i < 1000 && server.server.sharedSessions()[0]?.hostConnected !== false; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(server.server.sharedSessions()[0]?.hostConnected, false, "the owner's departure was noticed");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(ended(watcher), false, "the observer keeps the session");
    assert.equal(server.server.sharedSessions().length, 1);
    const late = await join("late");
    await late.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
    await late.request("session/detach", { sessionId });
    await watcher.request("session/detach", { sessionId });
    for (let i = 0; i < 200 && server.server.sharedSessions().length > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(server.server.sharedSessions(), []);
  },
);

it("lingerMs: a session nobody keeps waits that long for someone to attach", { timeout: 60_000 }, async () => {
  const { server, join } = await serve({ lingerMs: 600 });
  const owner = await join("owner");
  const { sessionId } = await owner.request("session/new", { cwd: "/tmp", mcpServers: [] });
  const controller = await join("controller");
  await controller.request("session/attach", { sessionId });
  owner.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await controller.request("session/detach", { sessionId });
  const left = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const back = await join("back");
  await back.request("session/attach", { sessionId, historyPolicy: "none" });
  const answer = await back.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream 1" }] });
  assert.equal(answer.stopReason, "end_turn", "reattached within lingerMs: the agent is still there");
  back.close();
  await back.until(() => true, "");
  for (let i = 0; i < 300 && server.server.sharedSessions().length > 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(server.server.sharedSessions(), []);
  assert.ok(Date.now() - left >= 600, "not before lingerMs");
});
