/**
 * Access to shared sessions over real sockets: attaching needs the server's token; a controller's read-only share
 * token lets its bearer observe that one session and nothing else (no controller role, no other session, no other
 * connection, no listing, no agent of its own); the listing (`GET <path>/sessions`) answers the server's token.
 * Also: sessions end for their observers when the last controller leaves, and a server without `sharedSessions`
 * passes `session/attach` to the agent like any other method.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { WebSocket } from "ws";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { sharedTestAgent } from "./support/shared-agent.js";
import { acpkitParticipant, type TestParticipant, type Target } from "./support/participants.js";

const STEP = { timeout: 60_000 };
const TOKEN = "share-test-token";

let server: ListeningAcpServer;
let target: Target;
const open: TestParticipant[] = [];

before(async () => {
  server = await listenAcp({ agent: sharedTestAgent(), token: TOKEN, sharedSessions: true });
  target = { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN };
});
after(async () => {
  for (const participant of open) participant.close();
  await server.close();
});

async function participant(
  name: string,
  profile: "websocket" | "http",
  token = TOKEN,
  sharingAware = false,
): Promise<TestParticipant> {
  const made = await acpkitParticipant(name, target, profile, token, sharingAware);
  open.push(made);
  return made;
}

async function newSession(who: TestParticipant): Promise<string> {
  return (await who.request("session/new", { cwd: "/tmp", mcpServers: [] })).sessionId;
}

describe("shared sessions: credentials", () => {
  it("a share token lets its bearer observe one session, over either transport, and nothing else", STEP, async () => {
    const owner = await participant("owner", "websocket");
    const sessionId = await newSession(owner);
    const other = await newSession(owner);
    const { token } = await owner.request("_acpkit/session/share", { sessionId });
    assert.match(token, /^acpshare_[A-Za-z0-9_-]{43}$/, "256 random bits, base64url");
    assert.equal((await owner.request("_acpkit/session/share", { sessionId })).token, token, "one token per session");
    for (const profile of ["http", "websocket"] as const) {
      const guest = await participant(`guest-${profile}`, profile, token);
      await assert.rejects(guest.request("session/attach", { sessionId }), (error: any) => {
        assert.equal(error.code, -32011);
        assert.match(error.message, /observe only/);
        return true;
      });
      await assert.rejects(guest.request("session/attach", { sessionId: other, role: "observer" }), /another session/);
      await assert.rejects(guest.request("session/new", { cwd: "/tmp", mcpServers: [] }), (error: any) => {
        assert.equal(error.code, -32011);
        assert.match(error.message, /share token/);
        return true;
      });
      const attached = await guest.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
      assert.equal(attached.role, "observer");
      await owner.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream 3" }] });
      await guest.until(() => guest.texts.length === 3, "the turn");
      await assert.rejects(
        guest.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] }),
        /read-only/,
      );
    }
    // Over plain HTTP: no listing, no other connection.
    const listing = `${server.url.replace(/\/$/, "")}/sessions`;
    assert.equal((await fetch(listing, { headers: { Authorization: `Bearer ${token}` } })).status, 403);
    assert.equal((await fetch(listing, { headers: { Authorization: "Bearer acpshare_guess" } })).status, 401);
    const hijack = await fetch(server.url, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Acp-Connection-Id": "00000000-0000-0000-0000-000000000000",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/", mcpServers: [] } }),
    });
    assert.equal(hijack.status, 403);
    const listed = await fetch(listing, { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(listed.status, 200);
    const { sessions } = (await listed.json()) as any;
    const shared = sessions.find((entry: any) => entry.sessionId === sessionId);
    assert.deepEqual(
      shared.participants.map((who: any) => [who.name, who.role, who.transport]),
      [
        ["owner", "controller", "websocket"],
        ["guest-http", "observer", "http"],
        ["guest-websocket", "observer", "websocket"],
      ],
    );
    assert.equal(shared.turnRunning, false);
    assert.equal(typeof shared.updates, "number");
  });

  it("observers are told when the session ends: its last controller left and its agent stopped", STEP, async () => {
    const owner = await participant("leaver", "http");
    const sessionId = await newSession(owner);
    const watcher = await participant("stayer", "websocket");
    await watcher.request("session/attach", { sessionId, role: "observer" });
    owner.close();
    await watcher.until(
      () => watcher.notifications.some((note) => note.method === "_acpkit/session/ended"),
      "the session's end",
    );
    await assert.rejects(watcher.request("session/attach", { sessionId, role: "observer" }), (error: any) => {
      assert.equal(error.code, -32001);
      assert.equal(error.data.sessionId, sessionId);
      return true;
    });
  });

  it("a client that says it knows shared sessions gets the server's updates on its own session", STEP, async () => {
    const aware = await participant("aware", "websocket");
    const sessionId = await newSession(aware);
    await aware.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream 1" }] });
    // acpkitParticipant does not say so: the host sees only the agent's own updates.
    assert.equal(aware.kind("prompt_received").length, 0);
    assert.equal(aware.kind("turn_complete").length, 0);
    assert.equal(aware.texts.length, 1);
    const told = await participant("told", "http", TOKEN, true);
    const own = await newSession(told);
    await told.request("session/prompt", { sessionId: own, prompt: [{ type: "text", text: "stream 2" }] });
    await told.until(() => told.kind("turn_complete").length === 1, "turn_complete");
    assert.deepEqual(
      told.updates.map((seen) => [seen.seq, seen.update.sessionUpdate]),
      [
        [1, "prompt_received"],
        [2, "agent_message_chunk"],
        [3, "agent_message_chunk"],
        [4, "turn_complete"],
      ],
    );
  });
});

describe("shared sessions: exact request ids", () => {
  it(
    "ids beyond 2^53 come back exactly on the server's own answers (attach, a queued prompt, a refusal)",
    STEP,
    async () => {
      const owner = await participant("exact-owner", "websocket");
      const sessionId = await newSession(owner);
      const socket = new WebSocket(server.webSocketUrl, ["acp"], { headers: { Authorization: `Bearer ${TOKEN}` } });
      const frames: string[] = [];
      socket.on("message", (data: Buffer) => frames.push(data.toString()));
      await new Promise((resolve) => socket.once("open", resolve));
      const send = (text: string) => socket.send(text);
      const answered = async (id: string) => {
        for (let i = 0; i < 400 && !frames.some((frame) => frame.includes(`"id":${id}`)); i++)
          await new Promise((resolve) => setTimeout(resolve, 25));
        const frame = frames.find((text) => text.includes(`"id":${id}`));
        assert.ok(frame, `an answer with the exact id ${id}`);
        return frame;
      };
      send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}');
      await answered("1");
      send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"session/attach","params":{"sessionId":"${sessionId}"}}`);
      assert.match(await answered("9007199254740993"), /"role":"controller"/);
      send(
        `{"jsonrpc":"2.0","id":9007199254740995,"method":"session/prompt","params":{"sessionId":"${sessionId}",` +
          `"prompt":[{"type":"text","text":"stream 1"}]}}`,
      );
      assert.match(await answered("9007199254740995"), /"stopReason":"end_turn"/);
      send(`{"jsonrpc":"2.0","id":9007199254740997,"method":"session/attach","params":{"sessionId":"gone"}}`);
      assert.match(await answered("9007199254740997"), /-32001/);
      socket.close();
    },
  );
});

describe("without sharedSessions", () => {
  let plain: ListeningAcpServer;
  before(async () => {
    plain = await listenAcp({ agent: sharedTestAgent(), token: TOKEN });
  });
  after(() => plain.close());

  it("session/attach goes to the agent, which does not know it (-32601)", STEP, async () => {
    const client = await acpkitParticipant(
      "plain",
      { url: plain.url, webSocketUrl: plain.webSocketUrl, token: TOKEN },
      "websocket",
    );
    open.push(client);
    const sessionId = await newSession(client);
    await assert.rejects(client.request("session/attach", { sessionId }), (error: any) => error.code === -32601);
    assert.equal((await fetch(`${plain.url}/sessions`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 404);
  });
});
