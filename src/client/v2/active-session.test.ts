import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate } from "../../protocol/v2.js";

import { chunk, idle, scriptedAgent, text, withSession, type Emit } from "./testing/scripted-agent.js";

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
