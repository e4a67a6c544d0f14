/**
 * acpkit's v2 `agent()` against the official SDK 2.4.0's, on the wire: the same scripted client messages go to an
 * agent built the same way from each, and the answers (id, code, result; error data where both define it the
 * same) and what the handlers saw must be equal. Message texts are not compared (acpkit's name the problem in the
 * message, the official ones in `data`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk/experimental/v2";
import { wirePeer, type WirePeer } from "../../acp/v2/testing/wire-peer.js";
import { agent } from "./agent-app.js";

const info = { name: "c", version: "1" };
const v2 = { protocolVersion: 2, info };
const newSession = { cwd: "/work", mcpServers: [] };

type Step = (peer: WirePeer) => Promise<unknown>;

/** The agent under test, from either SDK: records what its handlers see; its initialize can be told to fail once. */
function build(make: () => unknown, log: unknown[], failFirstInitialize = false) {
  let initializeCalls = 0;
  const app = make() as ReturnType<typeof agent>;
  return app
    .onRequest("initialize", ({ params }) => {
      log.push(["initialize", params]);
      if (failFirstInitialize && initializeCalls++ === 0) throw new Error("boom");
      return { protocolVersion: 2, info: { name: "a", version: "1" }, capabilities: { session: {} } };
    })
    .onRequest("session/new", ({ params }) => {
      log.push(["session/new", params.cwd]);
      return { sessionId: "s1" };
    })
    .onNotification("session/cancel", ({ params }) => void log.push(["cancel", params.sessionId]));
}

/** What is compared of an answer. */
function shape(answer: Record<string, unknown>) {
  const error = answer.error as { code: number; data?: unknown } | undefined;
  if (!error) return { id: answer.id, result: answer.result };
  const data = error.code === -32022 || error.code === -32602 ? error.data : undefined;
  return {
    id: answer.id,
    code: error.code,
    ...(error.code === -32022 || /cancel/.test(JSON.stringify(data)) ? { data } : {}),
  };
}

const call = (peer: WirePeer, id: unknown, method: string, params?: unknown) =>
  peer.call(id, method, params).then(shape);
const notify = (peer: WirePeer, method: string, params: unknown) => peer.send({ jsonrpc: "2.0", method, params });

const scenarios: Record<string, { failFirstInitialize?: boolean; steps: Step }> = {
  "requests and notifications before initialize": {
    steps: async (p) => [
      await notify(p, "session/cancel", { sessionId: "x" }),
      await call(p, 1, "session/new", newSession),
      await call(p, 2, "initialize", v2),
    ],
  },
  "version 1, then 2": {
    steps: async (p) => [await call(p, 1, "initialize", { protocolVersion: 1 }), await call(p, 2, "initialize", v2)],
  },
  "version 0": { steps: async (p) => [await call(p, 1, "initialize", { protocolVersion: 0, info })] },
  "version 3 without info": {
    steps: async (p) => [
      await call(p, 1, "initialize", { protocolVersion: 3, capabilities: { elicitation: { url: {} } } }),
    ],
  },
  "version 3 with malformed capabilities": {
    steps: async (p) => [
      await call(p, 1, "initialize", { protocolVersion: 3, info, capabilities: { auth: 5, elicitation: "x" } }),
    ],
  },
  "version 2 without info": {
    steps: async (p) => [await call(p, 1, "initialize", { protocolVersion: 2 }), await call(p, 2, "initialize", v2)],
  },
  "invalid versions": {
    steps: async (p) => [
      await call(p, 1, "initialize", { protocolVersion: 1.5, info }),
      await call(p, 2, "initialize", { protocolVersion: "2", info }),
      await call(p, 3, "initialize", null),
    ],
  },
  repeats: {
    steps: async (p) => [
      await call(p, 1, "initialize", v2),
      await call(p, 2, "initialize", { protocolVersion: 2, info: { name: "again", version: "2" } }),
      await call(p, 3, "initialize", { protocolVersion: 1 }),
      await call(p, 4, "initialize", { protocolVersion: 2 }),
      await call(p, 5, "session/new", newSession),
      await call(p, 6, "initialize", v2),
    ],
  },
  "a failing first initialize": {
    failFirstInitialize: true,
    steps: async (p) => [
      await call(p, 1, "initialize", v2),
      await call(p, 2, "session/new", newSession),
      await call(p, 3, "initialize", v2),
      await call(p, 4, "session/new", newSession),
    ],
  },
  ids: {
    steps: async (p) => [
      await call(p, 0.5, "initialize", v2),
      await call(p, null, "initialize", v2),
      await call(p, "s", "initialize", v2),
      await call(p, -3, "session/new", newSession),
      await call(p, 1e3, "session/new", newSession),
      await call(p, 2.5, "session/new", newSession),
    ],
  },
  "entity cancels and unknown methods": {
    steps: async (p) => [
      await call(p, 1, "initialize", v2),
      await call(p, 2, "tool_call/cancel", { sessionId: "s1", toolCallId: "t1" }),
      await call(p, 3, "terminal/cancel", { sessionId: "s1", terminalId: "x" }),
      await call(p, 4, "session/list", {}),
      await call(p, 5, "_acme/x", {}),
      await notify(p, "session/cancel", { sessionId: "s1" }),
      await call(p, 6, "session/new", { cwd: 5 }),
    ],
  },
};

for (const [name, { failFirstInitialize, steps }] of Object.entries(scenarios)) {
  test(`agent parity: ${name}`, async () => {
    const run = async (make: () => unknown) => {
      const log: unknown[] = [];
      const peer = wirePeer();
      build(make, log, failFirstInitialize).connect(peer.stream);
      const answers = await steps(peer);
      await peer.end();
      // As JSON: zod leaves a dropped field as an undefined member, acpkit leaves it out.
      return JSON.parse(JSON.stringify({ answers, log })) as unknown;
    };
    const theirs = await run(() => official.agent());
    const ours = await run(() => agent());
    assert.deepEqual(ours, theirs);
  });
}

test("agent parity: what handlers may register and call is refused alike", () => {
  const attempts = (make: () => unknown) => {
    const app = make() as ReturnType<typeof agent>;
    const outcomes: unknown[] = [];
    const attempt = (what: () => unknown) => {
      try {
        what();
        outcomes.push("ok");
      } catch (error) {
        outcomes.push((error as Error).name);
      }
    };
    attempt(() =>
      app.onRequest(
        "session/new" as "_x",
        (raw) => raw,
        () => ({}),
      ),
    );
    attempt(() =>
      app.onNotification(
        "session/cancel" as "_x",
        (raw) => raw,
        () => {},
      ),
    );
    attempt(() =>
      app.onRequest(
        "session/request_permission" as "_x",
        (raw) => raw,
        () => ({}),
      ),
    );
    attempt(() =>
      app.onRequest(
        "_acme/ok",
        (raw) => raw,
        () => ({}),
      ),
    );
    attempt(() => app.connect(wirePeer().stream));
    const connection = (build(make, []) as ReturnType<typeof agent>).connect(wirePeer().stream);
    attempt(() => connection.client.request("session/new" as "_x", newSession));
    attempt(() => connection.client.notify("session/cancel" as "_x", {}));
    attempt(() => void connection.client.request("_acme/x", {}).catch(() => undefined));
    attempt(() => void connection.client.notify("$/cancel_request", { requestId: 1 }).catch(() => undefined));
    connection.close();
    return outcomes;
  };
  assert.deepEqual(
    attempts(() => agent()),
    attempts(() => official.agent()),
  );
});
