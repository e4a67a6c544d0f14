/**
 * Shared sessions across the cluster, over real sockets: two `listenAcp` nodes, each with its own
 * `PostgresServerBackend` (its own pool and LISTEN connection) on one real PostgreSQL started for this file, nothing
 * shared between them but the database. A session opened on node A by one client is attached through node B by a
 * second client as a controller (it gets the history, its prompt runs, both see the streamed turn, a permission
 * request is answered by one of them and withdrawn from the other), an observer on B (WebSocket) is refused when it
 * prompts or cancels, node B lists the sessions of node A, and a share token minted on A is used on B (over
 * Streamable HTTP and WebSocket; the connection it opened is usable through A, no other one is).
 *
 * Test lane: solo
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { postgresUnavailable } from "../../../src/node/testing/postgres-server.js";
import { postgresNodes } from "./support/postgres-nodes.js";
import { del, post } from "./support/node-client.js";
import { acpkitParticipant, type TestParticipant, type Target } from "../shared/support/participants.js";
import { sharedTestAgent } from "../shared/support/shared-agent.js";

const unavailable = postgresUnavailable();
const STEP = { skip: unavailable, timeout: 60_000 };
const TOKEN = "cross-node-token";
// One agent app for both nodes: its session ids are unique across them.
const agent = sharedTestAgent();
const nodes = postgresNodes(agent, TOKEN);
const { servers, open } = nodes;

before(() => nodes.start());
after(() => nodes.close());

function target(node: number, token = TOKEN): Target {
  return { url: servers[node]!.url, webSocketUrl: servers[node]!.webSocketUrl, token };
}

async function participant(
  name: string,
  node: number,
  profile: "http" | "websocket",
  token = TOKEN,
): Promise<TestParticipant> {
  const made = await acpkitParticipant(name, target(node, token), profile, token, true);
  open.push(made);
  return made;
}

function prompt(who: TestParticipant, sessionId: string, text: string): Promise<any> {
  return who.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

async function listing(node: number, token = TOKEN): Promise<Response> {
  return fetch(`${servers[node]!.url.replace(/\/$/, "")}/sessions`, { headers: { Authorization: `Bearer ${token}` } });
}

/** Polls node `node`'s listing until `test` holds for the session (the owner refreshes it shortly after a change). */
async function listedOn(node: number, sessionId: string, test: (session: any) => boolean): Promise<any> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await listing(node);
    assert.equal(response.status, 200);
    const { sessions } = (await response.json()) as { sessions: any[] };
    const session = sessions.find((one) => one.sessionId === sessionId);
    if (session !== undefined && test(session)) return session;
    assert.ok(Date.now() < deadline, `node ${node} did not list ${sessionId} as expected: ${JSON.stringify(sessions)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("shared sessions across two cluster nodes", () => {
  let host: TestParticipant;
  let controller: TestParticipant;
  let sessionId: string;

  it("a controller attached through node B gets the history, and its prompt runs on node A's agent", STEP, async () => {
    host = await participant("host", 0, "http");
    ({ sessionId } = await host.request("session/new", { cwd: "/tmp", mcpServers: [] }));
    assert.equal((await prompt(host, sessionId, "stream 5")).stopReason, "end_turn");
    controller = await participant("remote-controller", 1, "http");
    const attached = await controller.request("session/attach", { sessionId, historyPolicy: "full" });
    assert.equal(attached.role, "controller");
    assert.equal(attached.connectedClients.length, 1, "the host is there");
    assert.equal(attached._meta.acpkit.replayed, 7, "prompt_received, 5 chunks, turn_complete");
    assert.deepEqual(controller.texts, ["u0", "u1", "u2", "u3", "u4"]);
    assert.deepEqual(
      controller.updates.map((seen) => seen.seq),
      [1, 2, 3, 4, 5, 6, 7],
    );
    await host.until(
      () =>
        host.notifications.some(
          (n) => n.method === "_acpkit/session/participants" && n.params.participants.length === 2,
        ),
      "the host told of the new participant",
    );

    const answer = await prompt(controller, sessionId, "stream 30");
    assert.equal(answer.stopReason, "end_turn");
    const turn = Array.from({ length: 30 }, (_, i) => `u${i}`);
    await host.until(() => host.texts.length === 35, "the remote controller's turn, on the host");
    assert.deepEqual(host.texts.slice(5), turn);
    await controller.until(() => controller.kind("turn_complete").length === 2, "the turn's end");
    assert.deepEqual(controller.texts.slice(5), turn);
    const received = host.kind("prompt_received").at(-1)!.update;
    assert.equal(received.sentBy.name, "remote-controller", "the host sees who prompted");
    // Both saw the same numbered updates, with no gap and no repeat.
    const seqs = (who: TestParticipant) => who.updates.map((seen) => seen.seq);
    assert.deepEqual(seqs(controller), seqs(host));
    assert.deepEqual(
      seqs(host),
      seqs(host).map((_, i) => i + 1),
    );
  });

  it(
    "a permission request reaches both nodes' controllers; the first answer wins, the other copy is withdrawn",
    STEP,
    async () => {
      // The remote controller answers; the host's copy is withdrawn.
      host.permissionAnswer = "wait";
      controller.permissionAnswer = "allow";
      await prompt(host, sessionId, "permissions 1");
      await host.until(() => host.permissionsWithdrawn === 1, "the host's copy withdrawn");
      assert.equal(controller.permissionsAsked, 1);
      const resolved = (who: TestParticipant) => who.kind("permission_resolved").map((seen) => seen.update);
      await controller.until(() => resolved(controller).length === 1, "permission_resolved on B");
      assert.equal(resolved(host)[0].resolvedBy.name, "remote-controller");
      assert.equal(resolved(controller)[0].chosenOptionId, "allow");
      assert.ok(host.texts.includes("outcome 0 allow"), "the agent on A got the remote answer");

      // The host answers; the remote controller's copy (on B) is withdrawn through the relay.
      host.permissionAnswer = "reject";
      controller.permissionAnswer = "wait";
      await prompt(controller, sessionId, "permissions 1");
      await controller.until(() => controller.permissionsWithdrawn === 1, "the remote copy withdrawn");
      await controller.until(() => resolved(controller).length === 2, "the second permission_resolved on B");
      assert.equal(resolved(controller)[1].resolvedBy.name, "host");
      assert.ok(controller.texts.includes("outcome 0 reject"));
      controller.permissionAnswer = "allow";
      host.permissionAnswer = "allow";
    },
  );

  it(
    "an observer on node B (WebSocket) sees the turn live and is refused when it prompts or cancels",
    STEP,
    async () => {
      const observer = await participant("remote-observer", 1, "websocket");
      await observer.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
      assert.equal(observer.updates.length, 0, "historyPolicy none");
      await assert.rejects(prompt(observer, sessionId, "stream 1"), (error: any) => {
        assert.equal(error.code, -32011);
        assert.match(error.message, /read-only/);
        return true;
      });
      await observer.notify("session/cancel", { sessionId });
      await observer.until(
        () => observer.notifications.some((n) => n.method === "_acpkit/session/refused"),
        "the refused cancel",
      );
      await prompt(host, sessionId, "stream 10");
      await observer.until(() => observer.texts.length === 10, "the host's turn on the observer");
      assert.deepEqual(
        observer.texts,
        Array.from({ length: 10 }, (_, i) => `u${i}`),
      );
      const listed = await listedOn(1, sessionId, (session) => session.participants.length === 3);
      assert.deepEqual(listed.participants.map((one: any) => one.role).sort(), [
        "controller",
        "controller",
        "observer",
      ]);
      assert.equal(listed.node, servers[0]!.server.nodeId, "node B lists the session as node A's");
      assert.equal(listed.turnRunning, false);
      observer.close();
      await host.until(
        () => host.kind("client_disconnected").some((seen) => seen.update.client.name === "remote-observer"),
        "the observer's departure, on A",
      );
    },
  );

  it("node B lists node A's sessions; an unknown session is not found through B", STEP, async () => {
    const session = await listedOn(1, sessionId, (one) => one.participants.length === 2);
    assert.equal(session.hostConnected, true);
    const onA = await listing(0);
    const own = ((await onA.json()) as { sessions: any[] }).sessions.filter((one) => one.sessionId === sessionId);
    assert.equal(own.length, 1, "each session is listed once, by its own node");
    await assert.rejects(controller.request("session/attach", { sessionId: "no-such-session" }), (error: any) => {
      assert.equal(error.code, -32001);
      return true;
    });
  });

  it("a share token minted on node A lets its bearer observe through node B, and nothing more", STEP, async () => {
    const { token } = await host.request("_acpkit/session/share", { sessionId });
    assert.match(token, /^acpshare_/);
    // First over a WebSocket (the upgrade waits for the token to be checked in the cluster's state), then over HTTP.
    const socketGuest = await participant("socket-guest", 1, "websocket", token);
    await socketGuest.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
    await prompt(controller, sessionId, "stream 3");
    await socketGuest.until(() => socketGuest.texts.length === 3, "the turn, on the WebSocket guest");
    const guest = await participant("guest", 1, "http", token);
    await assert.rejects(guest.request("session/attach", { sessionId }), /observe only/);
    await guest.request("session/attach", { sessionId, role: "observer", historyPolicy: "none" });
    await prompt(controller, sessionId, "stream 4");
    await guest.until(() => guest.texts.length === 4, "the turn, on the guest");
    await assert.rejects(prompt(guest, sessionId, "stream 1"), /read-only/);
    assert.equal((await listing(1, token)).status, 403, "a share token cannot list sessions");
    assert.equal((await listing(1, "acpshare_guess")).status, 401);

    // A connection opened with the share token on B may be used through A (behind a balancer); no other one may.
    const nodes = servers.map((server) => server.url);
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    };
    const opened = await post({ nodes, token }, nodes[1]!, initialize);
    assert.equal(opened.status, 200);
    const shared = opened.headers.get("acp-connection-id")!;
    const attach = { jsonrpc: "2.0", id: 1, method: "session/attach", params: { sessionId, role: "observer" } };
    const through = await post({ nodes, token }, nodes[0]!, attach, { connectionId: shared, sessionId });
    assert.equal(through.status, 202, `the share connection through node A: ${through.text}`);
    const full = await post({ nodes, token: TOKEN }, nodes[0]!, initialize);
    const other = full.headers.get("acp-connection-id")!;
    for (const node of nodes) {
      const refused = await post({ nodes, token }, node, attach, { connectionId: other, sessionId });
      assert.equal(refused.status, 403, "a share token on a connection it did not open");
    }
    await del({ nodes, token: TOKEN }, nodes[0]!, other);
  });

  it("a remote controller detaches; its connection's own agent gets its messages again", STEP, async () => {
    const detached = await controller.request("session/detach", { sessionId });
    assert.equal(detached.status, "detached");
    await host.until(
      () => host.kind("client_disconnected").some((seen) => seen.update.client.name === "remote-controller"),
      "the detach, on A",
    );
    // Detached, its prompt about the session goes to its own connection's agent (on B), no longer to node A's.
    const before = host.texts.length;
    assert.equal((await prompt(controller, sessionId, "stream 3")).stopReason, "end_turn");
    assert.equal((await prompt(host, sessionId, "stream 2")).stopReason, "end_turn");
    assert.equal(host.texts.length, before + 2);
  });
});
