/**
 * Fault 2 of issue 8: requests sent before `initialize`. The 1.x classes behave as 1.9.0 did (no gate: served);
 * the 2.x apps as 2.4.0 does (an agent app with an `initialize` handler answers -32600 with the official message
 * until `initialize` succeeded; without one there is no gate). Each expectation is checked against the official
 * implementation too, so the test says what the reference does, not what we think it does.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import * as official1x from "sdk-1.9";
import * as acpkit from "../../src/entries/index.js";

type V1 = typeof official1x;
type V2 = typeof official;

const classImpls: Array<[string, V1]> = [
  // A cast: the official classes have private members, which TypeScript compares nominally (the shapes are checked in
  // type-shapes.test.ts).
  ["acpkit", acpkit as unknown as V1],
  ["official 1.9.0", official1x],
];
const appImpls: Array<[string, V2]> = [
  ["acpkit", acpkit as unknown as V2],
  ["official 2.4.0", official],
];

function pipes() {
  const a = new TransformStream<Uint8Array, Uint8Array>();
  const b = new TransformStream<Uint8Array, Uint8Array>();
  return { agent: { output: b.writable, input: a.readable }, client: { output: a.writable, input: b.readable } };
}

const newSession = { cwd: "/work", mcpServers: [] };

for (const [name, sdk] of classImpls) {
  describe(`1.x classes, requests before initialize (${name})`, () => {
    test("AgentSideConnection serves them", async () => {
      const p = pipes();
      new sdk.AgentSideConnection(
        () => ({
          initialize: async () => ({ protocolVersion: 1 }),
          newSession: async () => ({ sessionId: "early" }),
          authenticate: async () => ({}),
          prompt: async () => ({ stopReason: "end_turn" }),
          cancel: async () => {},
        }),
        sdk.ndJsonStream(p.agent.output, p.agent.input),
      );
      const client = new sdk.ClientSideConnection(
        () => ({
          requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
          sessionUpdate: async () => {},
        }),
        sdk.ndJsonStream(p.client.output, p.client.input),
      );
      assert.deepEqual(await client.newSession(newSession), { sessionId: "early" });
      assert.deepEqual(await client.prompt({ sessionId: "early", prompt: [] }), { stopReason: "end_turn" });
    });

    test("ClientSideConnection serves the agent's requests before initialize too", async () => {
      const p = pipes();
      let agentSide!: official1x.AgentSideConnection;
      new sdk.AgentSideConnection(
        (conn) => {
          agentSide = conn;
          return {
            initialize: async () => ({ protocolVersion: 1 }),
            newSession: async () => ({ sessionId: "s" }),
            authenticate: async () => ({}),
            prompt: async () => ({ stopReason: "end_turn" }),
            cancel: async () => {},
          };
        },
        sdk.ndJsonStream(p.agent.output, p.agent.input),
      );
      new sdk.ClientSideConnection(
        () => ({
          requestPermission: async () => ({ outcome: { outcome: "selected", optionId: "yes" } }),
          sessionUpdate: async () => {},
        }),
        sdk.ndJsonStream(p.client.output, p.client.input),
      );
      const answer = await agentSide.requestPermission({
        sessionId: "s",
        toolCall: { toolCallId: "t" },
        options: [{ optionId: "yes", name: "Yes", kind: "allow_once" }],
      });
      assert.deepEqual(answer, { outcome: { outcome: "selected", optionId: "yes" } });
    });
  });
}

for (const [name, sdk] of appImpls) {
  describe(`2.x apps, requests before initialize (${name})`, () => {
    test("an agent app with an initialize handler refuses them with -32600 until initialize succeeded", async () => {
      const app = sdk
        .agent()
        .onRequest("initialize", () => ({ protocolVersion: 1 }))
        .onRequest("session/new", () => ({ sessionId: "s1" }));
      await sdk.client().connectWith(app, async (ctx) => {
        await assert.rejects(ctx.request("session/new", newSession), (error: unknown) => {
          assert.equal((error as { code?: number }).code, -32600);
          assert.equal(
            (error as Error).message,
            "Invalid request: ACP connection must be initialized before 'session/new'",
          );
          return true;
        });
        await ctx.request("initialize", { protocolVersion: 1 });
        assert.deepEqual(await ctx.request("session/new", newSession), { sessionId: "s1" });
      });
    });

    test("an agent app without an initialize handler has no gate", async () => {
      const app = sdk.agent().onRequest("session/new", () => ({ sessionId: "s2" }));
      await sdk.client().connectWith(app, async (ctx) => {
        assert.deepEqual(await ctx.request("session/new", newSession), { sessionId: "s2" });
      });
    });
  });
}
