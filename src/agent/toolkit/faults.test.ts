/**
 * The agent toolkit over the fault-injection transports (`@acpkit/sdk/testing`): the agent's end of the wire
 * duplicates, drops and breaks. Each fault ends in a defined outcome: a permission decided once, a turn that ends, no
 * crash.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentSideConnection } from "../agent-side-connection.js";
import { ClientSideConnection } from "../../client/client-side-connection.js";
import { ConnectionClosedError } from "../../jsonrpc/local-errors.js";
import { silentLogger } from "../../jsonrpc/logger.js";
import type { SessionNotification } from "../../protocol/index.js";
import { withFaults, type LinkFaultOptions } from "../../transports/faults/index.js";
import { createMemoryPair } from "../../transports/memory.js";
import { toolkitAgent, type ToolkitAgentOptions } from "./toolkit-agent.js";

const quiet = { logger: silentLogger };
const newParams = { cwd: "/work/project", mcpServers: [] };
const isResponse = (message: unknown): boolean =>
  typeof message === "object" && message !== null && !("method" in message);

/** A toolkit agent whose end of the wire has `faults`, and a plain client that allows every permission. */
async function connect(options: ToolkitAgentOptions, faults: LinkFaultOptions) {
  const [agentEnd, clientEnd] = createMemoryPair();
  const faulty = withFaults(agentEnd, faults);
  const agentConnection = new AgentSideConnection((conn) => toolkitAgent(conn, options), faulty, quiet);
  const updates: SessionNotification[] = [];
  let asked = 0;
  const client = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => void updates.push(params),
      requestPermission: () => (asked++, { outcome: { outcome: "selected", optionId: "allow_once" } }),
    }),
    clientEnd,
    quiet,
  );
  await client.initialize({ protocolVersion: 1, clientCapabilities: {} });
  return { client, agentConnection, updates, asked: () => asked, faults: faulty.faults };
}

test("duplicated permission answers decide each tool call once; the turn completes", async () => {
  const decisions: boolean[] = [];
  const h = await connect(
    {
      onPrompt: async (turn) => {
        for (let n = 0; n < 3; n++) {
          const call = turn.toolCall({ title: `edit ${n}`, kind: "edit" });
          const decision = await turn.requestPermission(call);
          decisions.push(decision.allowed);
          await call.complete();
        }
      },
    },
    { receive: { duplicate: isResponse } },
  );
  const { sessionId } = await h.client.newSession(newParams);
  assert.deepEqual(await h.client.prompt({ sessionId, prompt: [] }), { stopReason: "end_turn" });
  assert.deepEqual(decisions, [true, true, true]);
  assert.equal(h.asked(), 3);
  assert.ok(h.faults.events.filter((e) => e.kind === "duplicate").length >= 3);
  const completed = h.updates.filter(
    (u) => u.update.sessionUpdate === "tool_call_update" && u.update.status === "completed",
  );
  assert.equal(completed.length, 3, "each tool call completed once");
});

test("a dropped permission answer does not wedge the turn: the client's cancel ends it as cancelled", async () => {
  let aborted = false;
  const h = await connect(
    {
      onPrompt: async (turn) => {
        turn.signal.addEventListener("abort", () => (aborted = true));
        const call = turn.toolCall({ title: "rm -rf", kind: "delete" });
        await turn.requestPermission(call);
        return "end_turn";
      },
    },
    {
      receive: {
        drop: (message) =>
          isResponse(message) && typeof (message as { result?: { outcome?: unknown } }).result?.outcome === "object",
      },
    },
  );
  const { sessionId } = await h.client.newSession(newParams);
  const answer = h.client.prompt({ sessionId, prompt: [] });
  while (h.asked() === 0) await new Promise((resolve) => setTimeout(resolve, 2));
  await h.client.cancel({ sessionId });
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  assert.equal(aborted, true);
  assert.ok(h.faults.events.some((e) => e.kind === "drop"));
});

test(
  "the client disappears mid-turn: the turn's signal aborts and " + "the agent's connection closes, without a crash",
  async () => {
    let aborted: unknown;
    const h = await connect(
      {
        onPrompt: async (turn) => {
          await turn.requestPermission(turn.toolCall({ title: "edit", kind: "edit" })).catch(() => {});
          if (!turn.signal.aborted) await new Promise((resolve) => turn.signal.addEventListener("abort", resolve));
          aborted = turn.signal.reason;
          return "cancelled";
        },
      },
      // initialize, session/new, session/prompt, the permission answer: then the client is gone.
      { receive: { endAfter: 4 } },
    );
    const { sessionId } = await h.client.newSession(newParams);
    void h.client.prompt({ sessionId, prompt: [] }).catch(() => {});
    await h.agentConnection.closed;
    while (aborted === undefined) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.equal(h.asked(), 1);
    assert.equal(h.faults.events.at(-1)?.kind, "end");
  },
);

test(
  "EPIPE on the agent's output mid-turn: the turn's sends fail as " + "closed, the connection closes, nothing hangs",
  async () => {
    const failures: unknown[] = [];
    const h = await connect(
      {
        onPrompt: async (turn) => {
          for (let n = 0; n < 50; n++) {
            try {
              await turn.say(`chunk ${n} `);
            } catch (error) {
              failures.push(error);
              break;
            }
          }
          return "end_turn";
        },
      },
      // the initialize and session/new answers get through, then the pipe breaks on the turn's third update.
      { send: { failAfter: 4 } },
    );
    const { sessionId } = await h.client.newSession(newParams);
    void h.client.prompt({ sessionId, prompt: [] }).catch(() => {});
    await h.agentConnection.closed;
    while (failures.length === 0 && !h.agentConnection.signal.aborted)
      await new Promise((resolve) => setTimeout(resolve, 2));
    assert.ok(h.agentConnection.signal.aborted);
    if (failures.length > 0) assert.ok(failures[0] instanceof ConnectionClosedError, String(failures[0]));
    assert.ok(h.faults.events.some((e) => e.kind === "write_error"));
  },
);
