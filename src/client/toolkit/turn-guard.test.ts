import assert from "node:assert/strict";
import { test } from "node:test";
import type { Agent } from "../../acp/agent-handler.js";
import { AgentSideConnection } from "../../agent/agent-side-connection.js";
import { ConnectionClosedError } from "../../jsonrpc/local-errors.js";
import { RequestError } from "../../jsonrpc/request-error.js";
import type * as schema from "../../protocol/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import { ClientSideConnection } from "../client-side-connection.js";
import { Transcript } from "./transcript.js";
import { TurnGuard, type TurnViolation } from "./turn-guard.js";

const chunk = (text: string): schema.SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
});

/** An in-process agent whose prompt behaviour is chosen by the prompt's text (each a quirk of real agents). */
function quirkyAgent(connection: AgentSideConnection): Agent {
  let cancelled: (() => void) | undefined;
  return {
    initialize: () => ({ protocolVersion: 1, agentCapabilities: {} }),
    authenticate: () => {},
    newSession: () => ({ sessionId: "S" }),
    cancel: () => cancelled?.(),
    async prompt({ sessionId, prompt }) {
      const text = prompt[0]?.type === "text" ? prompt[0].text : "";
      await connection.sessionUpdate({ sessionId, update: chunk(`${text}: working.`) });
      if (text === "polite") {
        await new Promise<void>((resolve) => (cancelled = resolve));
        return { stopReason: "cancelled" };
      }
      if (text === "end-turn-after-cancel") {
        await new Promise<void>((resolve) => (cancelled = resolve));
        return { stopReason: "end_turn" };
      }
      if (text === "error-after-cancel") {
        await new Promise<void>((resolve) => (cancelled = resolve));
        throw RequestError.internalError(undefined, "aborted");
      }
      if (text === "ignore-cancel") return new Promise(() => {});
      if (text === "late") {
        setTimeout(
          () =>
            void connection
              .sessionUpdate({ sessionId, update: chunk(" late one.") })
              .then(() => connection.sessionUpdate({ sessionId, update: chunk(" late two.") })),
          5,
        );
      }
      return { stopReason: "end_turn" };
    },
  };
}

function setup(cancelDeadlineMs = 60_000) {
  const [clientEnd, agentEnd] = createMemoryPair();
  new AgentSideConnection((connection) => quirkyAgent(connection), agentEnd);
  const violations: TurnViolation[] = [];
  const ignored: string[] = [];
  const transcript = new Transcript({ sessionId: "S" });
  const placements: Array<{ text: string; turn: number | undefined; late: boolean }> = [];
  const lazy = {
    prompt: (...args: Parameters<ClientSideConnection["prompt"]>) => connection.prompt(...args),
    cancel: (params: schema.CancelNotification) => connection.cancel(params),
  };
  const guard = new TurnGuard(lazy, {
    cancelDeadlineMs,
    onViolation: (v) => violations.push(v),
    onCancelIgnored: (sessionId) => ignored.push(sessionId),
  });
  const connection = new ClientSideConnection(
    () => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: (notification) => {
        const placement = guard.observe(notification);
        const update = notification.update;
        placements.push({
          text:
            update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? update.content.text : "",
          ...placement,
        });
        transcript.apply(update);
      },
    }),
    clientEnd,
  );
  return { connection, guard, violations, ignored, transcript, placements };
}

async function started(s: ReturnType<typeof setup>, text: string) {
  await s.connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  await s.connection.newSession({ cwd: "/", mcpServers: [] });
  s.transcript.beginTurn([{ type: "text", text }]);
  const working = new Promise<void>((resolve) => {
    const off = s.transcript.onChange(() => {
      if (s.transcript.entries.some((entry) => entry.kind === "message" && entry.role === "agent")) {
        off();
        resolve();
      }
    });
  });
  const answer = s.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text }] });
  await working;
  return { answer };
}

test("a cancel honoured: cancelled, no violation", async () => {
  const s = setup();
  const { answer } = await started(s, "polite");
  assert.equal(s.guard.cancel("S"), true);
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  assert.deepEqual(s.violations, []);
  assert.equal(s.guard.cancel("S"), false, "nothing to cancel once answered");
});

test("end_turn answered after a cancel is reported as cancelled, with a violation naming the mistake", async () => {
  const s = setup();
  const { answer } = await started(s, "end-turn-after-cancel");
  s.guard.cancel("S");
  assert.deepEqual(await answer, { stopReason: "cancelled", agentStopReason: "end_turn" });
  assert.equal(s.violations.length, 1);
  assert.deepEqual(
    { ...s.violations[0], message: undefined },
    { kind: "stop_reason_after_cancel", sessionId: "S", turn: 0, agentStopReason: "end_turn", message: undefined },
  );
  assert.match(
    s.violations[0]!.message,
    /answered "end_turn" to a cancelled turn; the protocol says it MUST answer "cancelled"/,
  );
});

test("an error answered after a cancel is reported as cancelled too; other errors pass through", async () => {
  const s = setup();
  const { answer } = await started(s, "error-after-cancel");
  s.guard.cancel("S");
  assert.deepEqual(await answer, { stopReason: "cancelled", agentStopReason: "error -32603" });
  assert.match(s.violations[0]!.message, /answered a cancelled turn with an error \(-32603: Internal error: aborted\)/);
});

test(
  "a cancel not honoured within the deadline ends the turn here " + "and calls onCancelIgnored; what follows is late",
  async () => {
    const s = setup(50);
    const { answer } = await started(s, "ignore-cancel");
    s.guard.cancel("S");
    assert.deepEqual(await answer, { stopReason: "cancelled", endedLocally: true });
    assert.deepEqual(s.ignored, ["S"]);
    assert.equal(s.violations[0]!.kind, "cancel_ignored");
    assert.match(s.violations[0]!.message, /did not end the turn within 50 ms of the cancel/);
    assert.equal(s.guard.isRunning("S"), false);
    // The connection itself still works, and a new turn can start.
    s.transcript.endTurn("cancelled");
    const next = s.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text: "next" }] });
    assert.deepEqual(await next, { stopReason: "end_turn" });
    s.connection.close();
  },
);

test(
  "updates after the answer are placed in the turn that produced them (late), reported once, not in the next " + "turn",
  async () => {
    const s = setup();
    const { answer } = await started(s, "late");
    assert.deepEqual(await answer, { stopReason: "end_turn" });
    s.transcript.endTurn("end_turn");
    await new Promise<void>((resolve) => {
      const off = s.transcript.onChange(() => {
        if (s.transcript.turns[0]!.lateUpdates === 2) {
          off();
          resolve();
        }
      });
    });
    s.transcript.beginTurn([{ type: "text", text: "next" }]);
    assert.deepEqual(await s.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text: "next" }] }), {
      stopReason: "end_turn",
    });
    assert.deepEqual(s.placements, [
      { text: "late: working.", turn: 0, late: false },
      { text: " late one.", turn: 0, late: true },
      { text: " late two.", turn: 0, late: true },
      { text: "next: working.", turn: 1, late: false },
    ]);
    assert.deepEqual(
      s.violations.map((v) => [v.kind, v.turn]),
      [["update_after_response", 0]],
    );
    assert.match(
      s.violations[0]!.message,
      /sent a session\/update \(agent_message_chunk\) after answering session\/prompt/,
    );
    const agentTexts = s.transcript.entries
      .filter((entry) => entry.kind === "message" && entry.role === "agent")
      .map((entry) => [entry.turn, entry.kind === "message" ? entry.text : ""]);
    assert.deepEqual(agentTexts, [
      [0, "late: working. late one. late two."],
      [1, "next: working."],
    ]);
  },
);

test("a second prompt while one runs is refused; a closed connection rejects as usual", async () => {
  const s = setup();
  const { answer } = await started(s, "ignore-cancel");
  await assert.rejects(s.guard.prompt({ sessionId: "S", prompt: [] }), /a prompt turn is still running in session S/);
  s.connection.close("test over");
  await assert.rejects(answer, (error: unknown) => error instanceof ConnectionClosedError);
  s.guard.close();
});
