/** The 2.x agent app: protocol v2's initialization lifecycle. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RequestError } from "../../jsonrpc/index.js";
import { wirePeer } from "../../acp/v2/testing/wire-peer.js";
import { agent } from "./agent-app.js";

import { agentInfo, codeOf, newSession, recordingAgent, tick, v2Initialize } from "./testing/recording-agent.js";

test(
  "before initialize: requests get -32600 naming the method, " + "notifications are ignored; initialize still works",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "early" } });
    const early = await peer.call(1, "session/new", newSession);
    assert.equal(codeOf(early), -32600);
    assert.match((early.error as { message: string }).message, /initialized before 'session\/new'/);
    assert.deepEqual(peer.seen, []);
    assert.ok("result" in (await peer.call(2, "initialize", v2Initialize)));
    assert.deepEqual((await peer.call(3, "session/new", newSession)).result, { sessionId: "s1" });
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "late" } });
    await peer.call(4, "_ping", {});
    assert.deepEqual(
      log.filter((entry) => (entry as string[])[0] === "cancel"),
      [["cancel", "late"]],
    );
  },
);

test(
  "initialize for version 1 gets -32022 {requested: 1, " + "supported: [2]}; the connection may still initialize",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    app.connect(peer.stream);
    const refused = await peer.call(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(codeOf(refused), -32022);
    assert.deepEqual((refused.error as { data: unknown }).data, { requested: 1, supported: [2] });
    assert.deepEqual(log, []);
    assert.ok("result" in (await peer.call(2, "initialize", v2Initialize)));
  },
);

test(
  "initialize for a newer version: the handler sees " + "protocolVersion 2, a missing info replaced, and answers 2",
  async () => {
    const { app, log } = recordingAgent();
    const peer = wirePeer();
    const connection = app.connect(peer.stream);
    const answer = await peer.call(1, "initialize", {
      protocolVersion: 3,
      capabilities: { elicitation: { form: {} } },
    });
    assert.equal((answer.result as { protocolVersion: number }).protocolVersion, 2);
    const seen = {
      protocolVersion: 2,
      info: { name: "unknown", version: "unknown" },
      capabilities: { elicitation: { form: {} } },
    };
    assert.deepEqual(log, [["initialize", seen]]);
    assert.deepEqual((await connection.initialized).request, seen);
  },
);

test(
  "a repeated initialize: allowed before other requests (the " + "latest is authoritative), refused after one",
  async () => {
    const { app } = recordingAgent();
    const peer = wirePeer();
    const connection = app.connect(peer.stream);
    await peer.call(1, "initialize", v2Initialize);
    const second = { protocolVersion: 2, info: { name: "again", version: "2" } };
    assert.ok("result" in (await peer.call(2, "initialize", second)));
    assert.deepEqual((await connection.initialized).request.info, second.info);
    const lower = await peer.call(3, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(codeOf(lower), -32600, "a repeat must keep version 2");
    assert.match((lower.error as { message: string }).message, /repeated initialize must request protocol version 2/);
    const malformed = await peer.call(4, "initialize", { protocolVersion: 2 });
    assert.equal(codeOf(malformed), -32602);
    assert.deepEqual(
      (await connection.initialized).request.info,
      second.info,
      "failed repeats keep the previous exchange",
    );
    await peer.call(5, "session/new", newSession);
    const late = await peer.call(6, "initialize", v2Initialize);
    assert.equal(codeOf(late), -32600);
    assert.match((late.error as { message: string }).message, /must not be repeated after other requests/);
  },
);

test("a repeat whose handler fails leaves the client's capabilities of the exchange in effect", async () => {
  let calls = 0;
  const app = agent().onRequest("initialize", () => {
    if (++calls === 2) throw new RequestError(-32000, "not now");
    return { protocolVersion: 2, info: agentInfo };
  });
  const peer = wirePeer();
  const connection = app.connect(peer.stream);
  assert.equal(connection.peerSupports("elicitation/create"), false);
  await peer.call(1, "initialize", { ...v2Initialize, capabilities: { elicitation: { form: {} } } });
  assert.equal(connection.peerSupports("elicitation/create"), true);
  assert.equal(codeOf(await peer.call(2, "initialize", { ...v2Initialize, capabilities: {} })), -32000);
  assert.equal(
    connection.peerSupports("elicitation/create"),
    true,
    "the failed repeat's capabilities are not in effect",
  );
  assert.ok("result" in (await peer.call(3, "initialize", { ...v2Initialize, capabilities: {} })));
  assert.equal(connection.peerSupports("elicitation/create"), false, "a successful repeat's are");
});

test(
  "while initialize runs: other requests get -32600, another " + "initialize -32600, notifications are dropped",
  async () => {
    let release!: () => void;
    const log: string[] = [];
    const app = agent()
      .onRequest("initialize", async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return { protocolVersion: 2, info: agentInfo };
      })
      .onRequest("session/new", () => ({ sessionId: "s1" }))
      .onNotification("session/cancel", ({ params }) => void log.push(params.sessionId));
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: v2Initialize });
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "during-first" } });
    assert.match(
      ((await peer.call(2, "session/new", newSession)).error as { message: string }).message,
      /initialized before 'session\/new'/,
    );
    assert.match(
      ((await peer.call(3, "initialize", v2Initialize)).error as { message: string }).message,
      /already in progress/,
    );
    release();
    assert.equal((await peer.next()).id, 1);
    assert.deepEqual(log, []);
  },
);

test(
  "notifications during a repeated initialize are held until it " + "settled, and delivered even when it failed",
  async () => {
    let calls = 0;
    let release!: () => void;
    const log: string[] = [];
    const app = agent()
      .onRequest("initialize", async () => {
        if (++calls === 2) {
          await new Promise<void>((resolve) => (release = resolve));
          throw new RequestError(-32000, "not now");
        }
        return { protocolVersion: 2, info: agentInfo };
      })
      .onNotification("session/cancel", ({ params }) => void log.push(params.sessionId));
    const peer = wirePeer();
    app.connect(peer.stream);
    await peer.call(1, "initialize", v2Initialize);
    await peer.send({ jsonrpc: "2.0", id: 2, method: "initialize", params: v2Initialize });
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "held" } });
    await tick();
    assert.deepEqual(log, [], "held while the repeat runs");
    release();
    await peer.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "later" } });
    assert.equal(codeOf(await peer.next()), -32000);
    await tick();
    assert.deepEqual(log, ["held", "later"], "in arrival order");
  },
);

test(
  "an initialize handler that throws (or rejects) leaves the connection uninitialized: initialize can be sent " +
    "again",
  async () => {
    for (const fail of [
      () => {
        throw new Error("boom");
      },
      () => Promise.reject(new RequestError(-32000, "later")),
    ]) {
      let calls = 0;
      const app = agent()
        .onRequest("initialize", () => (++calls === 1 ? fail() : { protocolVersion: 2, info: agentInfo }))
        .onRequest("session/new", () => ({ sessionId: "s1" }));
      const peer = wirePeer();
      const connection = app.connect(peer.stream);
      let initialized = false;
      void connection.initialized.then(() => (initialized = true));
      assert.ok("error" in (await peer.call(1, "initialize", v2Initialize)));
      assert.equal(codeOf(await peer.call(2, "session/new", newSession)), -32600);
      await tick();
      assert.equal(initialized, false);
      assert.ok("result" in (await peer.call(3, "initialize", v2Initialize)));
      assert.ok("result" in (await peer.call(4, "session/new", newSession)));
      assert.equal((await connection.initialized).response.info.name, agentInfo.name);
    }
  },
);

test(
  "a handler answering protocolVersion 1 is refused (-32600 " + "with the versions) and nothing is initialized",
  async () => {
    for (const handler of [
      () => ({ protocolVersion: 1, info: agentInfo }),
      async () => ({ protocolVersion: 1, info: agentInfo }),
    ]) {
      const app = agent().onRequest("initialize", handler);
      const peer = wirePeer();
      app.connect(peer.stream);
      const answer = await peer.call(1, "initialize", v2Initialize);
      assert.equal(codeOf(answer), -32600);
      assert.deepEqual((answer.error as { data: unknown }).data, {
        expectedProtocolVersion: 2,
        receivedProtocolVersion: 1,
      });
      assert.equal(codeOf(await peer.call(2, "_x", {})), -32600, "still uninitialized");
      assert.equal(codeOf(await peer.call(3, "initialize", v2Initialize)), -32600, "the handler answers 1 again");
    }
  },
);
