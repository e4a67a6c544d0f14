import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionConfigOption, SessionUpdate } from "../../protocol/v2.js";
import { agent } from "../../agent/v2/agent-app.js";
import { client } from "./client-app.js";
import type { ActiveSession } from "./active-session.js";

const info = { name: "test-client", version: "1.0.0" };
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

const modelOption = (value: string): SessionConfigOption => ({
  type: "select",
  configId: "model",
  name: "Model",
  currentValue: value,
  options: [
    { value: "fast", name: "Fast" },
    { value: "deep", name: "Deep" },
  ],
});
const text = (value: string) => ({ type: "text" as const, text: value });
const chunk = (messageId: string, value: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: text(value),
});
const idle = (stopReason?: string, background?: unknown): SessionUpdate =>
  ({
    sessionUpdate: "state_update",
    state: "idle",
    ...(stopReason ? { stopReason } : {}),
    ...(background !== undefined ? { background } : {}),
  }) as SessionUpdate;

type Emit = (update: SessionUpdate) => Promise<void>;

/**
 * A v2 agent whose one session ("s1") runs a script per prompt text; `beforeResponse` updates go out before the
 * session/new response, `afterResponse` ones right after it (in the same turn). Records what it was asked.
 */
function scriptedAgent(options: {
  scripts?: Record<string, (emit: Emit) => Promise<void>>;
  beforeResponse?: SessionUpdate[];
  afterResponse?: SessionUpdate[];
  configOptions?: SessionConfigOption[];
}) {
  const calls: unknown[] = [];
  const app = agent()
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "scripted", version: "1" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", ({ client: peer }) => {
      const response = { sessionId: "s1", ...(options.configOptions ? { configOptions: options.configOptions } : {}) };
      const before = options.beforeResponse ?? [];
      if (before.length > 0)
        return Promise.all(before.map((update) => peer.notify("session/update", { sessionId: "s1", update }))).then(
          () => response,
        );
      // Answered synchronously, these go out right behind the response, delivered with it (the memory pair delivers
      // what one turn sent together): they arrive before the client's session/new call has resumed.
      for (const update of options.afterResponse ?? [])
        queueMicrotask(() => void peer.notify("session/update", { sessionId: "s1", update }));
      return response;
    })
    .onRequest("session/prompt", async ({ params, client: peer }) => {
      calls.push(["prompt", params.prompt]);
      const script = options.scripts?.[(params.prompt[0] as { text?: string }).text ?? ""];
      if (script) await script((update) => peer.notify("session/update", { sessionId: params.sessionId, update }));
      return { messageId: `user-${calls.length}` };
    })
    .onRequest("session/set_config_option", ({ params }) => {
      calls.push(["set_config_option", params]);
      return { configOptions: [modelOption(String(params.value))] };
    })
    .onRequest("tool_call/cancel", ({ params }) => void calls.push(["tool_call/cancel", params]))
    .onRequest("terminal/cancel", ({ params }) => void calls.push(["terminal/cancel", params]));
  return { app, calls };
}

/** Initializes, starts the session, runs `op`, disposes. */
function withSession<T>(app: ReturnType<typeof agent>, op: (session: ActiveSession) => Promise<T>): Promise<T> {
  return client().connectWith(app, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 2, info });
    return ctx.buildSession("/work").withSession(op);
  });
}

test(
  "an idle state_update is read as a stop with its stop " + "reason; other updates as session_update, in order",
  async () => {
    const { app } = scriptedAgent({
      scripts: {
        go: async (emit) => {
          await emit({ sessionUpdate: "state_update", state: "running" } as SessionUpdate);
          await emit(chunk("m1", "hi"));
          await emit(idle("end_turn"));
          await emit(idle());
        },
      },
    });
    await withSession(app, async (session) => {
      await session.prompt("go");
      const kinds = [];
      for (let i = 0; i < 4; i++) {
        const message = await session.nextUpdate();
        kinds.push([message.kind, message.update.sessionUpdate, message.kind === "stop" ? message.stopReason : "-"]);
        assert.equal(message.notification.update, message.update);
      }
      assert.deepEqual(kinds, [
        ["session_update", "state_update", "-"],
        ["session_update", "agent_message_chunk", "-"],
        ["stop", "state_update", "end_turn"],
        ["stop", "state_update", undefined],
      ]);
    });
  },
);

test(
  "readTextUntilIdle: agent_message replaces its message's content, chunks append, other content and updates " +
    "are skipped",
  async () => {
    const { app } = scriptedAgent({
      scripts: {
        go: async (emit) => {
          await emit(chunk("m1", "draft "));
          await emit(chunk("m2", "second"));
          await emit({
            sessionUpdate: "agent_message",
            messageId: "m1",
            content: [text("final "), { type: "image", data: "AA==", mimeType: "image/png" }],
          });
          await emit(chunk("m1", "and more "));
          await emit({ sessionUpdate: "agent_thought_chunk", messageId: "t", content: text("thinking") });
          await emit({ sessionUpdate: "agent_message", messageId: "m3" });
          await emit(chunk("m3", "!"));
          await emit({ sessionUpdate: "agent_message", messageId: "m4", content: [text("cleared")] });
          await emit({ sessionUpdate: "agent_message", messageId: "m4", content: null });
          await emit(idle("end_turn"));
          await emit(chunk("m9", "next turn"));
          await emit(idle("end_turn"));
        },
      },
    });
    await withSession(app, async (session) => {
      const [, first] = await Promise.all([session.prompt("go"), session.readTextUntilIdle()]);
      assert.equal(first, "final and more second!");
      assert.equal(await session.readTextUntilIdle(), "next turn", "the next read starts after the stop");
    });
  },
);

test(
  "background work: the latest list, reset by a snapshot without one; isForBackgroundWork by tool call or " +
    "command subject",
  async () => {
    const request = (subject?: unknown) =>
      ({
        sessionId: "s1",
        title: "t",
        options: [{ optionId: "a", name: "A", kind: "allow_once" }],
        ...(subject ? { subject } : {}),
      }) as never;
    const toolCall = request({ type: "tool_call", toolCall: { toolCallId: "bg-call" } });
    const command = (ids: Record<string, string>) =>
      request({ type: "command", command: "make", cwd: "/work", ...ids });
    const { app } = scriptedAgent({
      scripts: {
        list: (emit) =>
          emit(
            idle("end_turn", [
              { type: "tool_call", toolCallId: "bg-call" },
              { type: "terminal", terminalId: "bg-term" },
            ]),
          ),
        empty: (emit) => emit(idle("end_turn", [])),
        none: (emit) => emit({ sessionUpdate: "state_update", state: "running" } as SessionUpdate),
        custom: (emit) =>
          emit({
            sessionUpdate: "state_update",
            state: "paused_by_future",
            background: [],
          } as unknown as SessionUpdate),
      },
    });
    await withSession(app, async (session) => {
      assert.equal(session.background, undefined);
      assert.equal(session.isForBackgroundWork(toolCall), false, "not reported yet");
      await session.prompt("list");
      assert.deepEqual(
        session.background,
        [
          { type: "tool_call", toolCallId: "bg-call" },
          { type: "terminal", terminalId: "bg-term" },
        ],
        "applied on arrival",
      );
      assert.equal(session.isForBackgroundWork(toolCall), true);
      assert.equal(session.isForBackgroundWork(command({ toolCallId: "bg-call" })), true);
      assert.equal(session.isForBackgroundWork(command({ terminalId: "bg-term" })), true);
      assert.equal(session.isForBackgroundWork(command({ terminalId: "other" })), false);
      assert.equal(
        session.isForBackgroundWork(request({ type: "tool_call", toolCall: { toolCallId: "bg-term" } })),
        false,
        "ids are per kind",
      );
      assert.equal(session.isForBackgroundWork(request()), false, "no subject");
      await session.prompt("empty");
      assert.deepEqual(session.background, []);
      assert.equal(session.isForBackgroundWork(toolCall), false);
      await session.prompt("list");
      await session.prompt("none");
      assert.equal(session.background, undefined, "a snapshot without a list resets it");
      await session.prompt("list");
      await session.prompt("custom");
      assert.equal(session.background, undefined, "a state this version does not know resets it");
    });
  },
);

test(
  "cancellable tool calls and terminals follow capabilities " + "patches: omitted keeps, null or no cancel clears",
  async () => {
    const toolUpdate = (capabilities?: unknown) =>
      ({
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        ...(capabilities !== undefined ? { capabilities } : {}),
      }) as SessionUpdate;
    const terminalUpdate = (capabilities?: unknown) =>
      ({
        sessionUpdate: "terminal_update",
        terminalId: "term-1",
        ...(capabilities !== undefined ? { capabilities } : {}),
      }) as SessionUpdate;
    const steps: Array<[string, SessionUpdate[], boolean]> = [
      ["advertise", [toolUpdate({ cancel: {} }), terminalUpdate({ cancel: {} })], true],
      ["omit", [toolUpdate(), terminalUpdate()], true],
      ["empty", [toolUpdate({}), terminalUpdate({})], false],
      ["again", [toolUpdate({ cancel: {} }), terminalUpdate({ cancel: {} })], true],
      ["null", [toolUpdate(null), terminalUpdate(null)], false],
      ["again2", [toolUpdate({ cancel: {} }), terminalUpdate({ cancel: {} })], true],
      ["cancel-null", [toolUpdate({ cancel: null }), terminalUpdate({ cancel: null })], false],
    ];
    const scripts = Object.fromEntries(
      steps.map(([name, updates]) => [name, async (emit: Emit) => void (await Promise.all(updates.map(emit)))]),
    );
    const { app, calls } = scriptedAgent({ scripts });
    await withSession(app, async (session) => {
      assert.equal(session.canCancelToolCall("call-1"), false);
      await assert.rejects(
        session.cancelToolCall("call-1"),
        (error: unknown) => error instanceof TypeError && /"call-1" does not advertise cancel/.test(error.message),
      );
      await assert.rejects(session.cancelTerminal("term-1"), TypeError);
      for (const [name, , cancellable] of steps) {
        await session.prompt(name);
        assert.equal(session.canCancelToolCall("call-1"), cancellable, `tool call after ${name}`);
        assert.equal(session.canCancelTerminal("term-1"), cancellable, `terminal after ${name}`);
      }
      assert.equal(calls.filter((call) => (call as string[])[0] !== "prompt").length, 0, "refused calls sent nothing");
      await session.prompt("again");
      assert.deepEqual(await session.cancelToolCall("call-1"), {});
      assert.deepEqual(await session.cancelTerminal("term-1"), {});
      assert.deepEqual(
        calls.filter((call) => (call as string[])[0] !== "prompt"),
        [
          ["tool_call/cancel", { sessionId: "s1", toolCallId: "call-1" }],
          ["terminal/cancel", { sessionId: "s1", terminalId: "term-1" }],
        ],
      );
    });
  },
);

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
