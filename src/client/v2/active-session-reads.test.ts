/** ActiveSession: reads with abort signals, updates before the session/new answer, prompt forms, SessionBuilder. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { agent } from "../../agent/v2/agent-app.js";
import { client } from "./client-app.js";

import {
  chunk,
  info,
  modelOption,
  scriptedAgent,
  text,
  tick,
  withSession,
  type Emit,
} from "./testing/scripted-agent.js";

test(
  "nextUpdate(signal): an abort ends that read only, and the " + "update it would have got goes to the next read",
  async () => {
    let emitLater!: Emit;
    const { app } = scriptedAgent({ scripts: { hold: async (emit) => void (emitLater = emit) } });
    await withSession(app, async (session) => {
      const aborted = new AbortController();
      aborted.abort(new Error("already"));
      await assert.rejects(session.nextUpdate(aborted.signal), /already/);
      await session.prompt("hold");
      const controller = new AbortController();
      const read = session.nextUpdate(controller.signal);
      controller.abort(new Error("stop reading"));
      await assert.rejects(read, /stop reading/);
      await emitLater(chunk("m1", "kept"));
      const next = await session.nextUpdate();
      assert.equal(next.kind === "session_update" && next.update.sessionUpdate, "agent_message_chunk");
      await emitLater(chunk("m1", "second"));
      await tick();
      const late = new AbortController();
      const queued = await session.nextUpdate(late.signal);
      late.abort();
      assert.equal(
        (queued.update as { content: { text: string } }).content.text,
        "second",
        "an already queued update is read at once",
      );
    });
  },
);

test("updates sent before the session/new response are the session's first", async () => {
  const { app } = scriptedAgent({
    beforeResponse: [{ sessionUpdate: "available_commands_update", availableCommands: [] }, chunk("m0", "early")],
  });
  await withSession(app, async (session) => {
    assert.equal((await session.nextUpdate()).update.sessionUpdate, "available_commands_update");
    assert.equal((await session.nextUpdate()).update.sessionUpdate, "agent_message_chunk");
  });
});

test(
  "configOptions: from session/new, replaced by each config_option_update on arrival and by setConfigOption's " +
    "answer",
  async () => {
    const { app, calls } = scriptedAgent({
      configOptions: [modelOption("fast")],
      scripts: {
        switch: (emit) => emit({ sessionUpdate: "config_option_update", configOptions: [modelOption("deep")] }),
      },
    });
    await withSession(app, async (session) => {
      assert.deepEqual(session.configOptions, [modelOption("fast")]);
      await session.prompt("switch");
      assert.deepEqual(session.configOptions, [modelOption("deep")], "before the update is read");
      const response = await session.setConfigOption({ configId: "model", type: "id", value: "fast" });
      assert.deepEqual(response.configOptions, [modelOption("fast")]);
      assert.deepEqual(session.configOptions, [modelOption("fast")]);
      assert.deepEqual(
        session.newSessionResponse.configOptions,
        [modelOption("fast")],
        "the session/new response is kept as it was",
      );
      assert.deepEqual(calls.at(-1), [
        "set_config_option",
        { sessionId: "s1", configId: "model", type: "id", value: "fast" },
      ]);
    });
  },
);

test(
  "configOptions around the session/new response: a config_option_update sent before it is older, one sent " +
    "after it newer",
  async () => {
    const before = scriptedAgent({
      configOptions: [modelOption("fast")],
      beforeResponse: [{ sessionUpdate: "config_option_update", configOptions: [modelOption("deep")] }],
    });
    await withSession(before.app, async (session) => {
      assert.deepEqual(session.configOptions, [modelOption("fast")], "the response is the later state");
      assert.equal(
        (await session.nextUpdate()).update.sessionUpdate,
        "config_option_update",
        "the update is still delivered",
      );
    });
    const after = scriptedAgent({
      configOptions: [modelOption("fast")],
      afterResponse: [{ sessionUpdate: "config_option_update", configOptions: [modelOption("deep")] }],
    });
    await withSession(after.app, async (session) => {
      await session.nextUpdate();
      assert.deepEqual(session.configOptions, [modelOption("deep")]);
    });
    const without = scriptedAgent({
      beforeResponse: [{ sessionUpdate: "config_option_update", configOptions: [modelOption("deep")] }],
    });
    await withSession(without.app, async (session) => {
      assert.deepEqual(
        session.configOptions,
        [modelOption("deep")],
        "a response without configOptions keeps the earlier update's",
      );
    });
  },
);

test("prompt: a string or one block is wrapped; an empty array is a TypeError and nothing is sent", async () => {
  const { app, calls } = scriptedAgent({});
  await withSession(app, async (session) => {
    await assert.rejects(
      session.prompt([]),
      (error: unknown) => error instanceof TypeError && /at least one content block/.test(error.message),
    );
    assert.deepEqual(await session.prompt("plain"), { messageId: "user-1" });
    await session.prompt(text("block"));
    await session.prompt([text("a"), text("b")]);
    assert.deepEqual(calls, [
      ["prompt", [text("plain")]],
      ["prompt", [text("block")]],
      ["prompt", [text("a"), text("b")]],
    ]);
  });
});

test(
  "dispose: queued updates are still read, then reads fail; later updates are not applied; closing fails reads " +
    "too",
  async () => {
    let emitLater!: Emit;
    const { app } = scriptedAgent({
      configOptions: [modelOption("fast")],
      scripts: { go: async (emit) => void (emitLater = emit) },
    });
    await client()
      .connectWith(app, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 2, info });
        const session = await ctx.buildSession("/work").start();
        await session.prompt("go");
        await emitLater(chunk("m1", "queued"));
        await tick();
        session.dispose();
        assert.equal((await session.nextUpdate()).update.sessionUpdate, "agent_message_chunk");
        await assert.rejects(session.nextUpdate(), /Active session disposed/);
        await emitLater({ sessionUpdate: "config_option_update", configOptions: [modelOption("deep")] });
        await tick();
        assert.deepEqual(session.configOptions, [modelOption("fast")]);
        const other = await ctx.buildSession({ cwd: "/work", mcpServers: [] }).start();
        const pending = other.nextUpdate();
        pending.catch(() => undefined);
        return { pending };
      })
      .then(async ({ pending }) => {
        await assert.rejects(pending, /closed/i, "the connection closing fails a waiting read");
      });
  },
);

test("SessionBuilder: toRequest is a copy; additional directories and MCP servers go into session/new", async () => {
  const seen: unknown[] = [];
  const app = agent()
    .onRequest("initialize", () => ({ protocolVersion: 2, info: { name: "a", version: "1" } }))
    .onRequest("session/new", ({ params }) => {
      seen.push(params);
      return { sessionId: "s" };
    });
  await client().connectWith(app, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 2, info });
    const builder = ctx
      .buildSession("/work")
      .withAdditionalDirectories(["/extra"])
      .withMcpServer({ type: "http", name: "docs", url: "https://example.test/mcp", headers: [] });
    const copy = builder.toRequest();
    copy.cwd = "/elsewhere";
    assert.equal(builder.toRequest().cwd, "/work");
    const session = await builder.start();
    session[Symbol.dispose]();
    await assert.rejects(session.nextUpdate(), /disposed/);
  });
  assert.deepEqual(seen, [
    {
      cwd: "/work",
      additionalDirectories: ["/extra"],
      mcpServers: [{ type: "http", name: "docs", url: "https://example.test/mcp", headers: [] }],
    },
  ]);
});
