import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClientEnd } from "./participant.js";
import { ExactId } from "./share-protocol.js";
import { callMessage, CrossNode, relayedCall, type RelayMessage, type SessionRelay } from "./session-relay.js";

/** A relay that keeps what it is asked to send (the cluster's writes it to PostgreSQL). */
function recordingRelay(nodeId: string): SessionRelay & { sent: { node: string; message: RelayMessage }[] } {
  const sent: { node: string; message: RelayMessage }[] = [];
  return {
    nodeId,
    sent,
    locate: async () => undefined,
    send: (node, message) => void sent.push({ node, message: JSON.parse(JSON.stringify(message)) as RelayMessage }),
    changed: () => {},
    listElsewhere: async () => [],
    tokenIssued: async () => {},
    tokenSession: async () => undefined,
    connectionGrant: async () => undefined,
    sessionClosed: () => {},
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

  it("when the session's node stops, the requests still waiting are answered and the session is reported ended", () => {
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
    // The owner answered the first one (delivered back): only the second still waits.
    cross.toLocal({ kind: "deliver", to: "c2", sessionId: "s1", text: '{"jsonrpc":"2.0","id":1,"result":{}}' });
    assert.deepEqual([...cross.peers()], ["a"]);
    assert.deepEqual(cross.nodeGone("a"), [], "no participants of node a here");
    const texts = client.delivered.slice(1).map((one) => JSON.parse(one.text));
    assert.equal(texts.length, 2);
    assert.equal(texts[0].id, 2);
    assert.match(texts[0].error.message, /stopped; attach again/);
    assert.equal(texts[1].method, "_acpkit/session/ended");
    assert.equal(cross.ownerOf(client, "s1"), undefined, "no longer relayed");
    assert.deepEqual([...cross.peers()], []);
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
});
