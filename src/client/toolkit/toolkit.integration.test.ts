import assert from "node:assert/strict";
import { test } from "node:test";
import type * as schema from "../../protocol/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import { AgentSideConnection } from "../../agent/agent-side-connection.js";
import type { Agent } from "../../acp/agent-handler.js";
import { ClientSideConnection } from "../client-side-connection.js";
import { PermissionBroker } from "./permission-broker.js";
import { allowReads, interactive, selectOption, withMemory, type PermissionPolicy } from "./permission-policy.js";
import { rules } from "./permission-rules.js";
import { TranscriptRouter } from "./transcript-router.js";
import type { Transcript } from "./transcript.js";

const text = (value: string) => ({ type: "text" as const, text: value });

/** An agent that streams like real ones: updates before its session/new response, a planned turn with a permission. */
function scriptedAgent(connection: AgentSideConnection): Agent {
  const send = (sessionId: string, update: schema.SessionUpdate) => connection.sessionUpdate({ sessionId, update });
  let turns = 0;
  let cancelled: (() => void) | undefined;
  return {
    initialize: () => ({ protocolVersion: 1, agentCapabilities: {} }),
    authenticate: () => {},
    async newSession() {
      await send("S", {
        sessionUpdate: "available_commands_update",
        availableCommands: [{ name: "review", description: "Review changes" }],
      });
      return {
        sessionId: "S",
        modes: {
          currentModeId: "ask",
          availableModes: [
            { id: "ask", name: "Ask" },
            { id: "code", name: "Code" },
          ],
        },
      };
    },
    async prompt({ sessionId }) {
      turns++;
      if (turns === 2) {
        // the turn the client cancels: a permission left pending, then (wrongly) end_turn
        await send(sessionId, {
          sessionUpdate: "tool_call",
          toolCallId: "t2",
          title: "Run build",
          kind: "execute",
          status: "pending",
        });
        const stop = new Promise<void>((resolve) => (cancelled = resolve));
        const answer = await connection.requestPermission({
          sessionId,
          toolCall: { toolCallId: "t2" },
          options: [
            { optionId: "ok", name: "Allow", kind: "allow_once" },
            { optionId: "never", name: "Never", kind: "reject_always" },
          ],
        });
        await stop;
        await send(sessionId, agentText(`permission ${answer.outcome.outcome}`, "m3"));
        return { stopReason: "end_turn" };
      }
      await send(sessionId, { sessionUpdate: "agent_thought_chunk", content: text("Planning the edit.") });
      await send(sessionId, {
        sessionUpdate: "plan",
        entries: [
          { content: "Read config", priority: "high", status: "in_progress" },
          { content: "Edit config", priority: "high", status: "pending" },
        ],
      });
      await send(sessionId, agentText("Reading ", "m1"));
      await send(sessionId, agentText("the config.", "m1"));
      await send(sessionId, {
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Read config.json",
        kind: "read",
        status: "pending",
        locations: [{ path: "/work/config.json" }],
      });
      const read = await connection.requestPermission({
        sessionId,
        toolCall: { toolCallId: "t1" },
        options: permissionOptions,
      });
      assert.deepEqual(read.outcome, { outcome: "selected", optionId: "once" });
      await send(sessionId, { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress" });
      await send(sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        status: "completed",
        content: [{ type: "content", content: text("{}") }],
      });
      await send(sessionId, {
        sessionUpdate: "tool_call",
        toolCallId: "t1b",
        title: "Edit config.json",
        kind: "edit",
        status: "pending",
        locations: [{ path: "/work/config.json" }],
      });
      const edit = await connection.requestPermission({
        sessionId,
        toolCall: { toolCallId: "t1b", title: "Edit config.json" },
        options: permissionOptions,
      });
      assert.deepEqual(edit.outcome, { outcome: "selected", optionId: "always" });
      await send(sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: "t1b",
        status: "completed",
        content: [{ type: "diff", path: "/work/config.json", oldText: "{}", newText: '{"a":1}' }],
      });
      await send(sessionId, {
        sessionUpdate: "plan",
        entries: [
          { content: "Read config", priority: "high", status: "completed" },
          { content: "Edit config", priority: "high", status: "completed" },
        ],
      });
      await send(sessionId, { sessionUpdate: "current_mode_update", currentModeId: "code" });
      await send(sessionId, { sessionUpdate: "usage_update", used: 5000, size: 128000 });
      await send(sessionId, { sessionUpdate: "session_info_update", title: "Edit the config" });
      await send(sessionId, agentText("Done.", "m2"));
      return { stopReason: "end_turn" };
    },
    cancel() {
      cancelled?.();
    },
  };
}

const permissionOptions: schema.PermissionOption[] = [
  { optionId: "once", name: "Allow once", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

function agentText(value: string, messageId: string): schema.SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", content: text(value), messageId };
}

function outline(transcript: Transcript): string[] {
  return transcript.entries.map((entry) => {
    if (entry.kind === "message") return `${entry.turn} ${entry.role}: ${entry.text}`;
    if (entry.kind === "plan") return `${entry.turn} plan: ${entry.entries.map((item) => item.status).join(",")}`;
    if (entry.kind === "notice") return `notice ${entry.severity}: ${entry.title}`;
    if (entry.kind === "compaction") return `compaction ${entry.compactionId} ${entry.status}: ${entry.text}`;
    const call = entry.toolCall;
    return (
      `${entry.turn} tool ` +
      `${call.toolCallId} ${call.kind}/${call.status}${call.cancelled ? "/cancelled" : ""} ${call.content.map((c) => c.type).join(",")}`
    );
  });
}

test(
  "a ClientSideConnection with router, transcript and policies, against an AgentSideConnection streaming real " +
    "turns",
  async () => {
    const [agentStream, clientStream] = createMemoryPair();
    const agentSide = new AgentSideConnection(scriptedAgent, agentStream);
    const router = new TranscriptRouter();
    const asked: string[] = [];
    let release: (() => void) | undefined;
    // edits under /work are asked (and the user says "always"), reads are allowed, the rest rejected
    const policy = withMemory(
      rules([{ kind: "edit", path: "/work", decision: "ask" }], allowReads(), {
        ask: interactive((request) => (asked.push(request.toolCall.title ?? ""), "always")),
      }),
    );
    // execute asks a user who never answers: only the cancel ends it
    const waitForCancel: PermissionPolicy = (_request, { signal }) =>
      new Promise((resolve) => {
        release?.();
        signal.addEventListener("abort", () => resolve(selectOption("ok")));
      });
    const broker = new PermissionBroker(rules([{ kind: "execute", decision: "ask" }], policy, { ask: waitForCancel }), {
      lookupToolCall: (sessionId, toolCallId) => router.get(sessionId)?.toolCall(toolCallId),
    });
    const connection = new ClientSideConnection(
      () => ({
        sessionUpdate: (notification) => router.route(notification),
        requestPermission: (params) => broker.request(params),
      }),
      clientStream,
    );
    await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
    const created = await connection.newSession({ cwd: "/work", mcpServers: [] });
    assert.equal(router.bufferedFor("S"), 1); // the commands update came before the response
    const transcript = router.open(created.sessionId, created);
    assert.equal(transcript.availableCommands?.[0]?.name, "review");
    assert.equal(transcript.currentModeId, "ask");

    const prompt1 = [text("Set a to 1 in config.json")];
    transcript.beginTurn(prompt1);
    transcript.endTurn((await connection.prompt({ sessionId: "S", prompt: prompt1 })).stopReason);
    assert.deepEqual(asked, ["Edit config.json"]); // the read was allowed by allowReads, through the looked-up kind
    assert.equal(policy.remembered("S", "edit"), "allow");

    const prompt2 = [text("Now build it")];
    transcript.beginTurn(prompt2);
    const pending = new Promise<void>((resolve) => (release = resolve));
    const response2 = connection.prompt({ sessionId: "S", prompt: prompt2 });
    await pending;
    assert.equal(broker.pending("S").length, 1);
    transcript.requestCancel();
    await connection.cancel({ sessionId: "S" });
    assert.equal(broker.cancelSession("S"), 1);
    transcript.endTurn((await response2).stopReason);

    assert.deepEqual(outline(transcript), [
      "0 user: Set a to 1 in config.json",
      "0 thought: Planning the edit.",
      "0 plan: completed,completed",
      "0 agent: Reading the config.",
      "0 tool t1 read/completed content",
      "0 tool t1b edit/completed diff",
      "0 agent: Done.",
      "1 user: Now build it",
      "1 tool t2 execute/pending/cancelled ",
      "1 agent: permission cancelled",
    ]);
    assert.deepEqual(
      transcript.turns.map(({ stopReason, outcome, cancelRequested }) => ({ stopReason, outcome, cancelRequested })),
      [
        { stopReason: "end_turn", outcome: "end_turn", cancelRequested: false },
        { stopReason: "end_turn", outcome: "cancelled", cancelRequested: true },
      ],
    );
    assert.equal(transcript.currentModeId, "code");
    assert.equal(transcript.state.modes?.currentModeId, "code");
    assert.deepEqual(transcript.usage, { used: 5000, size: 128000 });
    assert.equal(transcript.info.title, "Edit the config");
    assert.equal(
      transcript.plan?.every((entry) => entry.status === "completed"),
      true,
    );
    assert.equal(router.buffered, 0);
    connection.close();
    await agentSide.closed;
  },
);
