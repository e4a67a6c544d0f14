/**
 * The client toolkit's side of shared sessions over a real server: `attachSession` / `detachSession` and a
 * `ParticipantsView` kept from what the server sends (who is attached, the prompt queue).
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { attachSession, detachSession, ParticipantsView } from "../../../src/entries/client-toolkit.js";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant, type TestParticipant } from "./support/participants.js";

const TOKEN = "toolkit-token";
let server: ListeningAcpServer;
const open: TestParticipant[] = [];
before(async () => {
  server = await listenAcp({ agent: sharedTestAgent(), token: TOKEN, sharedSessions: true });
});
after(async () => {
  for (const participant of open) participant.close();
  await server.close();
});

it(
  "attachSession, detachSession and a ParticipantsView follow who is there and the queue",
  { timeout: 60_000 },
  async () => {
    const target = { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN };
    const join = async (name: string, profile: "websocket" | "http") => {
      const participant = await acpkitParticipant(name, target, profile);
      open.push(participant);
      return participant;
    };
    const owner = await join("owner", "websocket");
    const { sessionId } = await owner.request("session/new", { cwd: "/tmp", mcpServers: [] });
    const watcher = await join("watcher", "http");
    const attached = await attachSession({ request: watcher.request }, sessionId, {
      role: "observer",
      historyPolicy: "none",
      clientInfo: { name: "watcher-app", version: "2.0.0" },
    });
    assert.equal(attached.role, "observer");
    assert.deepEqual(
      attached.connectedClients.map((who) => who.name),
      ["owner"],
    );
    const view = new ParticipantsView(sessionId, attached);
    assert.deepEqual(
      view.participants.map((who) => [who.name, who.role]),
      [
        ["owner", "controller"],
        ["watcher-app", "observer"],
      ],
    );
    let changes = 0;
    view.onChange(() => changes++);
    watcher.listeners.push((method, params) => view.apply(method, params));
    const helper = await join("helper", "websocket");
    await attachSession({ request: helper.request }, sessionId, { historyPolicy: "none" });
    await watcher.until(() => view.participants.length === 3, "the helper in the view");
    const seenQueued: number[] = [];
    view.onChange(() => seenQueued.push(view.queued.length));
    const prompt = (who: TestParticipant, text: string) =>
      who.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    await Promise.all([prompt(owner, "paced 3 30"), prompt(helper, "stream 1")]);
    await watcher.until(() => view.running === null && view.queued.length === 0, "the queue drained");
    assert.ok(seenQueued.includes(1), "the helper's prompt was seen waiting");
    assert.deepEqual(await detachSession({ request: helper.request }, sessionId), { sessionId, status: "detached" });
    await watcher.until(() => view.participants.length === 2, "the helper gone from the view");
    assert.deepEqual(
      view.participants.map((who) => who.name),
      ["owner", "watcher-app"],
    );
    assert.ok(changes > 3);
    assert.equal(view.apply("_acpkit/session/participants", { sessionId: "another", participants: [] }), false);
  },
);
