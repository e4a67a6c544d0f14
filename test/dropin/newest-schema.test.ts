/**
 * The newest schema (the one the official SDK 2.4.0 bundles): the new unstable methods are typed, validated and
 * dispatchable from both APIs; the new stable update kinds pass validation; NES and document sync live in
 * `@acpkit/sdk/experimental/nes` as in the official SDK; the 1.x classes' `request` / `notify` are typed like 1.9.0's.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as officialNes from "@agentclientprotocol/sdk/experimental/nes";
import * as acpkit from "../../src/entries/index.js";
import * as nes from "../../src/entries/experimental/nes.js";
import * as unstable from "../../src/entries/unstable.js";
import { recordingLogger } from "./support/raw-peer.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

function unstablePair(agentImpl: Partial<unstable.Agent>, clientImpl: Partial<unstable.Client> = {}) {
  const [a, c] = unstable.createMemoryPair();
  let agentSide!: unstable.AgentSideConnection;
  new unstable.AgentSideConnection((conn) => {
    agentSide = conn;
    return {
      initialize: async () => ({ protocolVersion: 1 }),
      newSession: async () => ({ sessionId: "s1" }),
      authenticate: async () => ({}),
      prompt: async () => ({ stopReason: "end_turn" as const }),
      cancel: async () => {},
      ...agentImpl,
    };
  }, a);
  const client = new unstable.ClientSideConnection(
    () => ({
      requestPermission: async () => ({ outcome: { outcome: "cancelled" as const } }),
      sessionUpdate: async () => {},
      ...clientImpl,
    }),
    c,
    { logger: recordingLogger() },
  );
  return { client, agentSide: () => agentSide };
}

describe("the new unstable methods, 1.x classes", () => {
  test(
    "session/archive, unarchive, set_title, status and " + "auth/status reach their handlers and come back typed",
    async () => {
      const calls: string[] = [];
      const { client } = unstablePair({
        unstable_archiveSession: async (p) => void calls.push(`archive ${p.sessionId}`),
        unstable_unarchiveSession: async (p) => void calls.push(`unarchive ${p.sessionId}`),
        unstable_setSessionTitle: async (p) => {
          calls.push(`title ${p.title}`);
          return { title: p.title.trim() };
        },
        unstable_sessionStatus: async () => ({ status: "open" }),
        unstable_authStatus: async () => ({ state: "authenticated" }),
      });
      await client.initialize({ protocolVersion: 1 });
      assert.deepEqual(await client.unstable_archiveSession({ sessionId: "s1" }), {});
      assert.deepEqual(await client.unstable_unarchiveSession({ sessionId: "s1" }), {});
      assert.deepEqual(await client.unstable_setSessionTitle({ sessionId: "s1", title: " Refactor " }), {
        title: "Refactor",
      });
      assert.deepEqual(await client.unstable_sessionStatus({ sessionId: "s1" }), { status: "open" });
      assert.deepEqual(await client.unstable_authStatus({}), { state: "authenticated" });
      assert.deepEqual(calls, ["archive s1", "unarchive s1", "title  Refactor "]);
    },
  );

  test("their params are validated: a title of the wrong type is answered -32602", async () => {
    const { client } = unstablePair({ unstable_setSessionTitle: async (p) => ({ title: p.title }) });
    await assert.rejects(
      client.unstable_setSessionTitle({ sessionId: "s1", title: 42 } as never),
      (e: { code?: number }) => e.code === -32602,
    );
  });

  test("auth/status_update reaches the client; mcp/message goes both ways", async () => {
    const seen: unknown[] = [];
    const { client, agentSide } = unstablePair(
      { unstable_mcpMessage: async (p) => void seen.push(["agent got", p.method]) },
      {
        unstable_authStatusUpdate: async (p) => void seen.push(["client got", p.state]),
        unstable_mcpMessage: async (p) => ({ result: { echoed: p.method } }) as never,
      },
    );
    await client.initialize({ protocolVersion: 1 });
    await agentSide().unstable_authStatusUpdate({ state: "unauthenticated" } as never);
    const answer = await agentSide().unstable_mcpMessage({
      serverId: "srv",
      requestId: "r1",
      method: "tools/list",
    } as never);
    assert.deepEqual(answer, { result: { echoed: "tools/list" } });
    await client.unstable_mcpMessage({ serverId: "srv", requestId: "r1", method: "notifications/progress" } as never);
    await client.initialize({ protocolVersion: 1 }); // a round trip: what was sent before has been handled
    assert.deepEqual(seen, [
      ["client got", "unauthenticated"],
      ["agent got", "notifications/progress"],
    ]);
  });
});

describe("the new methods, 2.x apps", () => {
  test(
    "agent({ unstable: true }) dispatches session/set_title and " + "session/status; the client's calls are typed",
    async () => {
      const app = unstable
        .agent()
        .onRequest("session/set_title", ({ params }) => ({ title: params.title }))
        .onRequest("session/status", () => ({ status: "saved" }));
      await unstable.client().connectWith(app, async (ctx) => {
        const titled: unstable.SetSessionTitleResponse = await ctx.request("session/set_title", {
          sessionId: "s",
          title: "t",
        });
        assert.deepEqual(titled, { title: "t" });
        assert.deepEqual(await ctx.request("session/status", { sessionId: "s" }), { status: "saved" });
      });
      assert.equal(unstable.methods.agent.session.setTitle, "session/set_title");
      assert.equal(unstable.methods.agent.auth.status, "auth/status");
      assert.equal(unstable.methods.client.auth.statusUpdate, "auth/status_update");
    },
  );
});

describe("new stable update kinds and fields", () => {
  test("notice, compaction_update, compaction_summary_chunk and ToolCall.name validate in the stable schema", () => {
    const updates = [
      { sessionUpdate: "notice", severity: "warning", title: "Rate limited", description: "retrying in 5 s" },
      { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" },
      { sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: { type: "text", text: "summary" } },
      { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read", name: "read_file" },
    ];
    for (const update of updates) {
      const issues = acpkit.schemas.SessionNotification.check({ sessionId: "s", update });
      assert.deepEqual(issues, [], `${update.sessionUpdate}: ${JSON.stringify(issues)}`);
    }
  });
});

describe("@acpkit/sdk/experimental/nes", () => {
  test("methods and AGENT_METHODS match the official entry's", () => {
    assert.deepEqual(JSON.parse(JSON.stringify(nes.methods)), JSON.parse(JSON.stringify(officialNes.methods)));
    assert.deepEqual({ ...nes.AGENT_METHODS }, { ...officialNes.AGENT_METHODS });
  });

  test(
    "a NES agent app serves nes/start, nes/suggest, nes/close and " + "document/didChange; invalid params get -32602",
    async () => {
      const events: string[] = [];
      const app = nes
        .agent()
        .onRequest("initialize", () => ({
          protocolVersion: 1,
          agentCapabilities: {
            nes: { events: { document: { didChange: { syncKind: "full" } } } },
            positionEncoding: "utf-16",
          },
        }))
        .onRequest("nes/start", () => ({ sessionId: "nes-1" }))
        .onRequest(
          "nes/suggest",
          ({ params }) =>
            ({
              suggestions: [{ kind: "jump", id: "j1", uri: params.uri, position: { line: 1, character: 0 } }],
            }) as never,
        )
        .onRequest("nes/close", () => {})
        .onNotification(
          "document/didChange",
          ({ params }) => void events.push(`change ${params.uri} v${params.version}`),
        );
      await nes.client({ logger: acpkit.silentLogger }).connectWith(app, async (ctx) => {
        const init = await ctx.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { nes: {}, positionEncodings: ["utf-16", "utf-99" as never] },
        });
        assert.equal(init.agentCapabilities?.positionEncoding, "utf-16");
        const started = await ctx.request("nes/start", { workspaceFolders: [] } as never);
        assert.equal((started as { sessionId: string }).sessionId, "nes-1");
        await ctx.notify("document/didChange", {
          sessionId: "nes-1",
          uri: "file:///a.ts",
          version: 2,
          contentChanges: [{ text: "x" }],
        });
        const suggested = await ctx.request("nes/suggest", {
          sessionId: "nes-1",
          uri: "file:///a.ts",
          version: 2,
          position: { line: 0, character: 0 },
          triggerKind: "automatic",
        } as never);
        assert.ok(suggested);
        assert.deepEqual(await ctx.request("nes/close", { sessionId: "nes-1" }), {});
        await assert.rejects(
          ctx.request("nes/suggest", { sessionId: 5 } as never),
          (e: { code?: number }) => e.code === -32602,
        );
      });
      assert.deepEqual(events, ["change file:///a.ts v2"]);
    },
  );

  test("validate has a z<Name> for every NES definition, with zod's parse and safeParse", () => {
    assert.deepEqual(Object.keys(nes.validate).sort(), Object.keys(officialNes.validate).sort());
    const bad = nes.validate.zPosition.safeParse({ line: "one" });
    assert.equal(bad.success, false);
    assert.deepEqual(nes.validate.zPosition.parse({ line: 1, character: 2 }), { line: 1, character: 2 });
  });

  test("the NES capability schemas repair a bad retired field the way the official entry does", () => {
    const ours = nes.zClientCapabilities.parse({ nes: "wrong", positionEncodings: ["utf-8", 7] });
    const theirs = officialNes.zClientCapabilities.parse({ nes: "wrong", positionEncodings: ["utf-8", 7] });
    assert.equal(ours.nes, theirs.nes);
    assert.deepEqual(ours.positionEncodings, theirs.positionEncodings);
  });
});

describe("1.x request / notify are typed like 1.9.0's", () => {
  test("table methods infer params and results; other names stay free-form", async () => {
    const { client, agentSide } = unstablePair({ extMethod: async (method) => ({ method }) });
    const init = await client.request("initialize", { protocolVersion: 1 });
    const typed: Equal<typeof init, unstable.InitializeResponse> = true;
    assert.equal(typed, true);
    assert.equal(init.protocolVersion, 1);
    const ext = await client.request<{ method: string }>("_acme/echo", { a: 1 });
    assert.deepEqual(ext, { method: "_acme/echo" });
    await agentSide().notify("session/update", {
      sessionId: "s1",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
    });
  });

  test("names 1.9.0 exported from its root compile against acpkit's root", () => {
    const usage: acpkit.Usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 } as acpkit.Usage;
    const fork: acpkit.ForkSessionRequest = { sessionId: "s", cwd: "/", mcpServers: [] } as acpkit.ForkSessionRequest;
    const provider: acpkit.ProviderInfo | undefined = undefined;
    const plan: acpkit.PlanUpdate | undefined = undefined;
    assert.ok(usage && fork && provider === undefined && plan === undefined);
    assert.equal(typeof acpkit.StateUpdate.isIdle, "function");
    assert.equal(typeof acpkit.IdleStateUpdate.isEndTurn, "function");
  });
});
