import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClientEnd } from "./participant.js";
import { ExactId } from "./share-protocol.js";
import {
  callMessage,
  CrossNode,
  ORPHANED,
  relayedCall,
  type RelayMessage,
  type SessionRelay,
} from "./session-relay.js";
import { Rejoins } from "./rejoin.js";
import type { SharedSession } from "./shared-session.js";

/** A relay that keeps what it is asked to send (the cluster's writes it to PostgreSQL). */
function recordingRelay(nodeId: string): SessionRelay & { sent: { node: string; message: RelayMessage }[] } {
  const sent: { node: string; message: RelayMessage }[] = [];
  return {
    nodeId,
    sent,
    locate: async () => undefined,
    locateListed: async () => undefined,
    send: (node, message) => void sent.push({ node, message: JSON.parse(JSON.stringify(message)) as RelayMessage }),
    changed: () => {},
    publishNow: async () => {},
    listElsewhere: async () => [],
    tokenIssued: async () => {},
    tokenSession: async () => undefined,
    connectionGrant: async () => undefined,
    sessionClosed: () => {},
    attachmentSaved: () => {},
    attachmentRemoved: () => {},
  };
}

function localClient(id: string): ClientEnd & { delivered: { text: string; sessionId: string | undefined }[] } {
  const delivered: { text: string; sessionId: string | undefined }[] = [];
  return {
    id,
    transport: "http",
    clientInfo: { name: id },
    sharingAware: true,
    shareGrant: undefined,
    delivered,
    deliverToClient(text, sessionId) {
      delivered.push({ text, sessionId });
      return true;
    },
  };
}

/** A session live here whose `restore` records who was taken back. */
function liveSession(restored: unknown[]): SharedSession {
  return {
    sessionId: "s1",
    history: { lastSeq: 9 },
    host: { id: "h" },
    participantOf: () => undefined,
    restore: (client: ClientEnd, departed: { role: string }, afterSeq: number) =>
      restored.push({ client: client.id, role: departed.role, afterSeq }),
  } as unknown as SharedSession;
}

/** What the session's adopter keeps of participant `id` whose node died (`Rejoins.keepDeparted`). */
function departedRecord(id: string, role: "controller" | "observer") {
  return {
    sessionId: "s1",
    hostConnectionId: "h",
    client: { node: "dead", id, transport: "http" as const, sharingAware: true },
    role,
    historyPolicy: "none" as const,
    clientId: `${id}-1`,
    lastSeq: 4,
  };
}

const prompt = (id: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "session/prompt",
  params: { sessionId: "s1", prompt: [] },
});

describe("the cross-node half of a hub", () => {
  it("a relayed call keeps an id beyond 2^53 exactly, through JSON", () => {
    const exact = new ExactId("9007199254740993", 9007199254740992);
    const info = { node: "b", id: "c2", transport: "http" as const, sharingAware: true };
    const travelled = JSON.parse(JSON.stringify(relayedCall(info, prompt(exact), 10))) as RelayMessage & {
      kind: "call";
    };
    const id = callMessage(travelled).id;
    assert.ok(id instanceof ExactId);
    assert.equal(id.raw, "9007199254740993");
    assert.equal(callMessage(JSON.parse(JSON.stringify(relayedCall(info, prompt(7), 10)))).id, 7);
  });

  it("when the session's node stops, what waits on it is settled and the attachment waits for the adopting node", () => {
    const relay = recordingRelay("b");
    const cross = new CrossNode(relay);
    const client = localClient("c2");
    cross.attached(client, "s1", "a");
    cross.forward(client, "s1", "a", prompt(1), 10);
    cross.forward(client, "s1", "a", prompt(2), 10);
    assert.deepEqual(
      relay.sent.map((sent) => sent.node),
      ["a", "a"],
    );
    // The owner answered the first one (delivered back): only the second still waits; it asked for a permission.
    cross.toLocal({ kind: "deliver", to: "c2", sessionId: "s1", text: '{"jsonrpc":"2.0","id":1,"result":{}}' });
    const asked = '{"jsonrpc":"2.0","id":"acpkit-mux-a-7","method":"session/request_permission","params":{}}';
    cross.toLocal({ kind: "deliver", to: "c2", sessionId: "s1", text: asked });
    assert.deepEqual([...cross.peers()], ["a"]);
    assert.deepEqual(cross.nodeGone("a"), [], "no participants of node a here");
    const texts = client.delivered.slice(2).map((one) => JSON.parse(one.text));
    assert.equal(texts.length, 2);
    assert.equal(texts[0].id, 2);
    assert.match(texts[0].error.message, /went away during the turn/);
    assert.deepEqual(texts[1], { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: "acpkit-mux-a-7" } });
    assert.equal(cross.ownerOf(client, "s1"), ORPHANED, "waiting for the node that adopts the session");
    assert.deepEqual([...cross.peers()], []);
    assert.deepEqual(
      cross.orphans().map((orphan) => orphan.sessionId),
      ["s1"],
    );
    // Meanwhile its requests are answered at once, with what is going on.
    cross.orphanCall(client, "s1", prompt(3));
    assert.match(JSON.parse(client.delivered.at(-1)!.text).error.message, /another node is taking the session over/);

    // Node c took the session over: the client's messages go there now, nothing is settled twice.
    const before = client.delivered.length;
    cross.moved({ kind: "moved", to: "c2", sessionId: "s1", node: "c" });
    assert.equal(cross.ownerOf(client, "s1"), "c");
    assert.deepEqual(cross.orphans(), []);
    assert.equal(client.delivered.length, before);
    cross.forward(client, "s1", "c", prompt(4), 10);
    assert.equal(relay.sent.at(-1)!.node, "c");

    // A move for an attachment this node no longer has: the new owner is told to drop it.
    cross.moved({ kind: "moved", to: "gone-client", sessionId: "s1", node: "c" });
    assert.deepEqual(relay.sent.at(-1), {
      node: "c",
      message: {
        kind: "leave",
        from: { node: "b", id: "gone-client", transport: "http", sharingAware: true },
        sessionId: "s1",
        reason: "left meanwhile",
      },
    });
  });

  it("an orphaned attachment nobody takes over ends for its client", () => {
    const relay = recordingRelay("b");
    const cross = new CrossNode(relay);
    const client = localClient("c2");
    cross.attached(client, "s1", "a");
    cross.nodeGone("a");
    cross.orphansEnded(new Set(["s1"]), "nobody took it over");
    assert.equal(JSON.parse(client.delivered.at(-1)!.text).method, "_acpkit/session/ended");
    assert.equal(cross.ownerOf(client, "s1"), undefined, "no longer relayed");
    assert.deepEqual(cross.orphans(), []);
  });

  it("a session taken over by this node: its local participant's attachment is no longer relayed", () => {
    const relay = recordingRelay("b");
    const cross = new CrossNode(relay);
    const client = localClient("c2");
    cross.attached(client, "s1", "a");
    cross.forward(client, "s1", "a", prompt(1), 10);
    assert.equal(cross.adoptedHere("c2", "s1"), client);
    assert.match(JSON.parse(client.delivered[0]!.text).error.message, /went away during the turn/);
    assert.equal(cross.ownerOf(client, "s1"), undefined);
    assert.equal(cross.adoptedHere("c2", "s1"), undefined, "not attached elsewhere any more");
  });

  it("a departure the owner reports stops the relaying; a client that goes away tells each owner once", () => {
    const relay = recordingRelay("b");
    const cross = new CrossNode(relay);
    const client = localClient("c2");
    cross.attached(client, "s1", "a");
    cross.attached(client, "s2", "a");
    cross.attached(client, "s3", "c");
    cross.toLocal({ kind: "left", to: "c2", sessionId: "s1" });
    assert.equal(cross.ownerOf(client, "s1"), undefined);
    assert.equal(cross.ownerOf(client, "s2"), "a");
    cross.clientGone(client, "socket closed");
    assert.deepEqual(
      relay.sent.map((sent) => [sent.node, sent.message.kind]),
      [
        ["a", "gone"],
        ["c", "gone"],
      ],
    );
    // Deliveries for a client that went away are dropped.
    cross.toLocal({ kind: "deliver", to: "c2", sessionId: "s2", text: "{}" });
    assert.equal(client.delivered.length, 0);
  });

  it("on the owner, a remote participant's deliveries go back to its node until it is forgotten", () => {
    const relay = recordingRelay("a");
    const cross = new CrossNode(relay);
    const info = { node: "b", id: "c2", transport: "websocket" as const, sharingAware: true };
    const remote = cross.remoteClient(info);
    assert.equal(cross.remoteClient(info), remote, "one object per connection");
    assert.equal(remote.deliverToClient("x", "s1"), true);
    assert.deepEqual(relay.sent[0], { node: "b", message: { kind: "deliver", to: "c2", sessionId: "s1", text: "x" } });
    assert.deepEqual(cross.nodeGone("b"), [remote]);
    cross.forget(remote);
    assert.equal(remote.deliverToClient("y", "s1"), false);
    assert.equal(relay.sent.length, 1);
    assert.notEqual(cross.remoteClient(info), remote);
  });

  it("a connection adopted here asks the node that lists the session to take it back, waiting for one for a while", async () => {
    const relay = recordingRelay("n");
    let looks = 0;
    // s1 is listed at once; s2 once its node's adopter rebuilt it (the third look); s9 never.
    relay.locateListed = async (sessionId) =>
      sessionId === "s1" ? "a" : sessionId === "s2" && ++looks >= 3 ? "c" : undefined;
    Object.assign(relay, { adoptionWaitMs: 1200 });
    const cross = new CrossNode(relay);
    const logged: string[] = [];
    const rejoins = new Rejoins({
      log: (message) => void logged.push(message),
      session: () => undefined,
      sessionsOf: () => [],
      member: () => {},
      gone: () => {},
    });
    const client = localClient("c2");
    await Promise.all([
      rejoins.rejoin(cross, client, "s1", 7),
      rejoins.rejoin(cross, client, "s2", 0),
      rejoins.rejoin(cross, client, "s9", 3),
    ]);
    const from = { node: "n", id: "c2", transport: "http", clientInfo: { name: "c2" }, sharingAware: true };
    assert.deepEqual(relay.sent, [
      { node: "a", message: { kind: "rejoin", from, sessionId: "s1", afterSeq: 7 } },
      { node: "c", message: { kind: "rejoin", from, sessionId: "s2", afterSeq: 0 } },
    ]);
    assert.equal(cross.ownerOf(client, "s1"), "a", "its messages about s1 go to node a");
    assert.equal(cross.ownerOf(client, "s2"), "c");
    assert.equal(client.delivered.length, 1);
    const ended = JSON.parse(client.delivered[0]!.text);
    assert.equal(ended.method, "_acpkit/session/ended");
    assert.equal(ended.params.sessionId, "s9");
    assert.match(ended.params.reason, /not live anywhere now/);
  });

  it("a rejoin that comes while its session is being rebuilt here waits for the departed record", async () => {
    const restored: unknown[] = [];
    const session = liveSession(restored);
    const rejoins = new Rejoins({
      log: () => {},
      session: () => session,
      sessionsOf: () => [],
      member: () => {},
      gone: () => {},
    });
    const client = localClient("c2");
    await rejoins.rejoin(new CrossNode(recordingRelay("n")), client, "s1", 4);
    assert.deepEqual(restored, [], "the session is live here, its departed participants not kept yet");
    await new Promise((resolve) => setTimeout(resolve, 300));
    rejoins.keepDeparted("s1", [departedRecord("c2", "observer")]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.deepEqual(restored, [{ client: "c2", role: "observer", afterSeq: 4 }]);
    assert.equal(client.delivered.length, 0, "not told its attachment ended");
  });

  it("a participant whose connection ends while its rejoin waits is neither sent on nor restored", async () => {
    const relay = recordingRelay("n");
    let looks = 0;
    // The session's node is found on the third look, after the connection ended.
    relay.locateListed = async () => (++looks >= 3 ? "a" : undefined);
    Object.assign(relay, { adoptionWaitMs: 3000 });
    const hub = { log: () => {}, session: () => undefined, sessionsOf: () => [], member: () => {}, gone: () => {} };
    const client = Object.assign(localClient("c2"), { gone: false });
    const waiting = new Rejoins(hub).rejoin(new CrossNode(relay), client, "s1", 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    client.gone = true;
    await waiting;
    assert.deepEqual(relay.sent, [], "no rejoin sent for a connection that ended");
    assert.equal(client.delivered.length, 0, "nothing written to it");
    assert.ok(looks < 3, `looked ${looks} times`);

    // Here the session is live, its departed record not kept yet; the participant's connection ends meanwhile.
    const restored: unknown[] = [];
    const session = liveSession(restored);
    const here = new Rejoins({ ...hub, session: () => session });
    const later = Object.assign(localClient("c3"), { gone: false });
    await here.rejoin(new CrossNode(recordingRelay("n")), later, "s1", 4);
    later.gone = true;
    here.keepDeparted("s1", [departedRecord("c3", "controller")]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(restored, [], "a participant whose connection ended is not restored");
  });

  it("on the owner, the views of one connection through several nodes are found by its id", () => {
    const cross = new CrossNode(recordingRelay("a"));
    const old = cross.remoteClient({ node: "b", id: "c2", transport: "http", sharingAware: true });
    const now = cross.remoteClient({ node: "c", id: "c2", transport: "http", sharingAware: true });
    cross.remoteClient({ node: "c", id: "c3", transport: "http", sharingAware: true });
    assert.deepEqual(cross.remoteClients("c2"), [old, now]);
  });
});
