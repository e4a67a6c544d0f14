import assert from "node:assert/strict";
import { test } from "node:test";
import { CapabilityMissingError } from "../../jsonrpc/index.js";
import type {
  CompleteElicitationNotification,
  CreateElicitationRequest,
  CreateElicitationResponse,
} from "../../protocol/index.js";
import { supportsElicitation, type ElicitResult } from "./elicitation.js";
import { MemorySessionStore } from "./memory-session-store.js";
import type { PromptTurn } from "./prompt-turn.js";
import { connectToolkit, until } from "./testing/harness.js";
import { UsageMeter, usageUpdate } from "./usage.js";

const newParams = { cwd: "/work/project", mcpServers: [] };
const schema = {
  type: "object" as const,
  properties: { strategy: { type: "string" as const, enum: ["safe", "fast"] } },
  required: ["strategy"],
};

async function run(
  caps: object,
  answer: (params: CreateElicitationRequest) => Promise<CreateElicitationResponse> | CreateElicitationResponse,
  body: (turn: PromptTurn) => Promise<void>,
) {
  const asked: CreateElicitationRequest[] = [];
  const completed: CompleteElicitationNotification[] = [];
  const h = await connectToolkit({ onPrompt: async (turn) => void (await body(turn)) }, caps, {
    createElicitation: (params) => (asked.push(params), answer(params)),
    completeElicitation: (params) => void completed.push(params),
  });
  const { sessionId } = await h.client.newSession(newParams);
  return {
    h,
    sessionId,
    asked,
    completed,
    answer: h.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] }),
  };
}

test("capability semantics: each mode must be present and non-null", () => {
  assert.equal(supportsElicitation({}, "form"), false);
  assert.equal(supportsElicitation({ elicitation: {} }, "form"), false);
  assert.equal(supportsElicitation({ elicitation: { form: null, url: {} } }, "form"), false);
  assert.equal(supportsElicitation({ elicitation: { form: {} } }, "form"), true);
  assert.equal(supportsElicitation({ elicitation: { url: {} } }, "url"), true);
});

test("form mode: sent scoped to the session, answered with the content", async () => {
  let result!: ElicitResult;
  const { asked, answer, sessionId } = await run(
    { elicitation: { form: {} } },
    () => ({ action: "accept", content: { strategy: "safe" } }),
    async (turn) => {
      result = await turn.elicit({ mode: "form", message: "How should I refactor?", requestedSchema: schema });
    },
  );
  await answer;
  assert.deepEqual(result, { action: "accept", content: { strategy: "safe" } });
  assert.deepEqual(asked, [{ sessionId, mode: "form", message: "How should I refactor?", requestedSchema: schema }]);
});

test("url mode: a fresh elicitation id, and complete() sends elicitation/complete with it", async () => {
  let result!: ElicitResult;
  const { asked, completed, answer } = await run(
    { elicitation: { url: {} } },
    () => ({ action: "accept" }),
    async (turn) => {
      result = await turn.elicit({
        mode: "url",
        message: "Authorize GitHub",
        url: "https://agent.example.com/connect",
      });
      await result.complete!();
    },
  );
  await answer;
  assert.equal(result.action, "accept");
  assert.match(result.elicitationId!, /^[0-9a-f-]{36}$/);
  assert.equal((asked[0] as { elicitationId?: string }).elicitationId, result.elicitationId);
  await until(() => completed.length === 1, 2000, "elicitation/complete");
  assert.deepEqual(completed, [{ elicitationId: result.elicitationId }]);
});

test(
  "a mode the client did not advertise is refused locally, " + "naming the capability (no form fallback for url)",
  async () => {
    const errors: unknown[] = [];
    const { asked, answer } = await run(
      { elicitation: { form: {} } },
      () => ({ action: "accept" }),
      async (turn) => {
        await turn
          .elicit({ mode: "url", message: "Log in", url: "https://example.com" })
          .catch((e: unknown) => errors.push(e));
      },
    );
    await answer;
    assert.equal(asked.length, 0);
    assert.ok(errors[0] instanceof CapabilityMissingError);
    assert.match((errors[0] as Error).message, /clientCapabilities\.elicitation\.url/);
  },
);

test("cancelling the turn cancels a pending elicitation", async () => {
  let caught: unknown;
  const { h, sessionId, asked, answer } = await run(
    { elicitation: { form: {} } },
    () => new Promise(() => {}),
    async (turn) => {
      await turn.elicit({ mode: "form", message: "?", requestedSchema: schema }).catch((e: unknown) => {
        caught = e;
        throw e;
      });
    },
  );
  await until(() => asked.length === 1, 2000, "the elicitation");
  await h.client.cancel({ sessionId });
  assert.deepEqual(await answer, { stopReason: "cancelled" });
  assert.ok(caught !== undefined);
});

test(
  "usage_update: reported in a turn, recorded, and replayed on " + "load; the meter keeps the cumulative cost",
  async () => {
    const store = new MemorySessionStore();
    const meter = new UsageMeter(200_000);
    const h = await connectToolkit({
      store,
      onPrompt: async (turn) => {
        meter.addCost(0.01, "USD");
        await meter.report((update) => turn.send(update), 1200);
        meter.addCost(0.02, "USD");
        await turn.reportUsage({ used: 1500, size: 200_000, cost: meter.cost! });
      },
    });
    const { sessionId } = await h.client.newSession(newParams);
    await h.client.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] });
    const usage = h.updates.map((n) => n.update).filter((u) => u.sessionUpdate === "usage_update");
    assert.deepEqual(usage[0], {
      sessionUpdate: "usage_update",
      used: 1200,
      size: 200_000,
      cost: { amount: 0.01, currency: "USD" },
    });
    assert.equal((usage[1] as { cost: { amount: number } }).cost.amount.toFixed(2), "0.03");
    assert.throws(() => meter.addCost(1, "EUR"), /in USD/);
    assert.throws(() => usageUpdate({ used: -1, size: 10 }), RangeError);

    const again = await connectToolkit({ store, onPrompt: async () => undefined });
    await again.client.loadSession({ sessionId, ...newParams });
    assert.equal(again.updates.filter((n) => n.update.sessionUpdate === "usage_update").length, 2);
  },
);
