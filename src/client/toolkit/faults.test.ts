/**
 * The client toolkit over the fault-injection transports (`@acpkit/sdk/testing`): a turn guard and a transcript fed
 * by a wire that duplicates, drops and dies. Each fault ends in a defined outcome: no double answer, no hang.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Agent } from "../../acp/agent-handler.js";
import { AgentSideConnection } from "../../agent/agent-side-connection.js";
import { ConnectionClosedError } from "../../jsonrpc/local-errors.js";
import { silentLogger } from "../../jsonrpc/logger.js";
import type * as schema from "../../protocol/index.js";
import { withFaults, type LinkFaultOptions } from "../../transports/faults/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import { ClientSideConnection } from "../client-side-connection.js";
import { Transcript } from "./transcript.js";
import { TurnGuard, type TurnViolation } from "./turn-guard.js";

const quiet = { logger: silentLogger };
const chunk = (text: string): schema.SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
});

/** An agent that streams two chunks and answers; "hang" waits for a cancel and then answers cancelled. */
function streamingAgent(connection: AgentSideConnection): Agent {
  let cancelled: (() => void) | undefined;
  return {
    initialize: () => ({ protocolVersion: 1, agentCapabilities: {} }),
    authenticate: () => {},
    newSession: () => ({ sessionId: "S" }),
    cancel: () => cancelled?.(),
    async prompt({ sessionId, prompt }) {
      await connection.sessionUpdate({ sessionId, update: chunk("one ") });
      await connection.sessionUpdate({ sessionId, update: chunk("two") });
      if (prompt[0]?.type === "text" && prompt[0].text === "hang") {
        await new Promise<void>((resolve) => (cancelled = resolve));
        return { stopReason: "cancelled" };
      }
      return { stopReason: "end_turn" };
    },
  };
}

/** A client (turn guard + transcript) whose end of the wire has the faults of `faults`. */
function setup(faults: LinkFaultOptions, cancelDeadlineMs = 60_000) {
  const [clientEnd, agentEnd] = createMemoryPair();
  new AgentSideConnection((connection) => streamingAgent(connection), agentEnd, quiet);
  const violations: TurnViolation[] = [];
  let updates = 0;
  const transcript = new Transcript({ sessionId: "S" });
  const lazy = {
    prompt: (...args: Parameters<ClientSideConnection["prompt"]>) => connection.prompt(...args),
    cancel: (params: schema.CancelNotification) => connection.cancel(params),
  };
  const guard = new TurnGuard(lazy, { cancelDeadlineMs, onViolation: (v) => violations.push(v) });
  const faulty = withFaults(clientEnd, faults);
  const connection = new ClientSideConnection(
    () => ({
      requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      sessionUpdate: (notification) => {
        guard.observe(notification);
        transcript.apply(notification.update);
        updates++;
      },
    }),
    faulty,
    quiet,
  );
  return { connection, guard, transcript, violations, faults: faulty.faults, updates: () => updates };
}

async function start(h: ReturnType<typeof setup>): Promise<void> {
  await h.connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  await h.connection.newSession({ cwd: "/", mcpServers: [] });
}

test("duplicated prompt answers end the turn once, with no violation, and the next turn runs", async () => {
  const h = setup({
    receive: {
      duplicate: (message) =>
        typeof message === "object" &&
        message !== null &&
        "result" in message &&
        "stopReason" in ((message as { result: object }).result ?? {}),
    },
  });
  await start(h);
  let settled = 0;
  const first = await h.guard
    .prompt({ sessionId: "S", prompt: [{ type: "text", text: "go" }] })
    .finally(() => settled++);
  assert.equal(first.stopReason, "end_turn");
  assert.deepEqual(await h.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text: "again" }] }), {
    stopReason: "end_turn",
  });
  assert.equal(settled, 1);
  assert.deepEqual(h.violations, []);
  assert.ok(
    h.faults.events.some((e) => e.kind === "duplicate"),
    "the answers were duplicated",
  );
});

test("a cancelled turn whose answer is dropped ends locally at the cancel deadline instead of hanging", async () => {
  const h = setup(
    {
      receive: {
        drop: (message) =>
          typeof message === "object" &&
          message !== null &&
          "result" in message &&
          (message as { result: { stopReason?: string } }).result?.stopReason === "cancelled",
      },
    },
    300,
  );
  await start(h);
  const turn = h.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text: "hang" }] });
  while (h.updates() < 2) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.equal(h.guard.cancel("S"), true);
  assert.deepEqual(await turn, { stopReason: "cancelled", endedLocally: true });
  assert.deepEqual(
    h.violations.map((v) => v.kind),
    ["cancel_ignored"],
  );
  assert.ok(h.faults.events.some((e) => e.kind === "drop"));
});

test("the agent dies in the middle of a turn: the prompt fails with ConnectionClosedError, nothing hangs", async () => {
  // initialize, session/new, then the first update of the turn: the agent is gone after that.
  const h = setup({ receive: { endAfter: 3 } });
  await start(h);
  await assert.rejects(
    h.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text: "go" }] }),
    ConnectionClosedError,
  );
  assert.equal(h.guard.isRunning("S"), false);
});

test("a write error (EPIPE) while prompting fails the turn with ConnectionClosedError naming EPIPE", async () => {
  const h = setup({ send: { failAfter: 2 } });
  await start(h);
  await assert.rejects(
    h.guard.prompt({ sessionId: "S", prompt: [{ type: "text", text: "go" }] }),
    (error) => error instanceof ConnectionClosedError && /EPIPE/.test(error.message),
  );
});
