/**
 * In a cluster, a session opened on a WebSocket is found by the other nodes only through the listing: the hub has
 * the listing written at once, and the connection holds the answer that gives the client the session's id until it
 * is written (the e2e side: test/e2e/shared/three-nodes.test.ts, every scenario's opener on a WebSocket).
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { silentLogger } from "../../../jsonrpc/logger.js";
import type { SessionRelay } from "./relay-protocol.js";
import { SessionHub } from "./session-hub.js";
import { SharedEndpoint, type HostedConnection } from "./shared-endpoint.js";

function relay(publishNow: () => Promise<void>): SessionRelay {
  return {
    nodeId: "a",
    locate: async () => undefined,
    locateListed: async () => undefined,
    send: () => {},
    changed: () => {},
    publishNow,
    listElsewhere: async () => [],
    tokenIssued: async () => {},
    tokenSession: async () => undefined,
    connectionGrant: async () => undefined,
    sessionClosed: () => {},
    attachmentSaved: () => {},
    attachmentRemoved: () => {},
  };
}

function connection(transport: "http" | "websocket", holds: Promise<unknown>[]): HostedConnection {
  return {
    id: `c-${transport}`,
    transport,
    output: undefined,
    agentLink: undefined as never,
    isOpen: true,
    ended: undefined,
    trackRequest: () => {},
    limitExceeded: () => {},
    end: async () => {},
    dropClient: () => {},
    holdOutput: (until) => void holds.push(until),
  };
}

const answer = (sessionId: string) => ({ jsonrpc: "2.0", id: 1, result: { sessionId } });

it("in a cluster, a WebSocket connection's new session is listed at once and its answer held until then", async () => {
  let published = 0;
  let release!: () => void;
  const hub = new SessionHub({}, silentLogger);
  hub.connectRelay(
    relay(() => {
      published++;
      return new Promise<void>((resolve) => (release = resolve));
    }),
  );
  const holds: Promise<unknown>[] = [];
  const endpoint = new SharedEndpoint(connection("websocket", holds), hub, undefined);
  assert.equal(endpoint.agentResponse(answer("s1"), { method: "session/new", sessionId: undefined }), false);
  assert.deepEqual(
    hub.list().map((session) => session.sessionId),
    ["s1"],
  );
  assert.equal(published, 1, "the listing is written now, not after the usual delay");
  assert.equal(holds.length, 1, "the answer waits for it");
  let settled = false;
  void holds[0]!.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false);
  release();
  await holds[0];
  // A session load on it (answered without error) is listed the same way; a failed one is not.
  endpoint.agentResponse(answer("s1"), { method: "session/load", sessionId: "s1" });
  assert.equal(holds.length, 2);
  endpoint.agentResponse(
    { jsonrpc: "2.0", id: 2, error: { code: -32000, message: "no" } },
    {
      method: "session/load",
      sessionId: "s2",
    },
  );
  assert.equal(holds.length, 2);
});

it("a Streamable HTTP connection's session (in the cluster's tables) and one on a single node are not held", () => {
  const clustered = new SessionHub({}, silentLogger);
  clustered.connectRelay(relay(() => assert.fail("not listed at once")));
  const httpHolds: Promise<unknown>[] = [];
  new SharedEndpoint(connection("http", httpHolds), clustered, undefined).agentResponse(answer("s1"), {
    method: "session/new",
    sessionId: undefined,
  });
  const single = new SessionHub({}, silentLogger);
  const socketHolds: Promise<unknown>[] = [];
  new SharedEndpoint(connection("websocket", socketHolds), single, undefined).agentResponse(answer("s2"), {
    method: "session/new",
    sessionId: undefined,
  });
  assert.equal(httpHolds.length + socketHolds.length, 0);
  assert.equal(single.list().length, 1);
});
