import assert from "node:assert/strict";
import { test } from "node:test";
import { connectToolkit } from "./testing/harness.js";

test(
  "a $/cancel_request for the prompt itself cancels that turn: " + "stopReason cancelled, like session/cancel",
  async () => {
    let sawAbort = false;
    const harness = await connectToolkit({
      onPrompt: async (turn) => {
        await new Promise<void>((resolve) =>
          turn.signal.addEventListener("abort", () => ((sawAbort = true), resolve()), { once: true }),
        );
        return "end_turn";
      },
    });
    const { sessionId } = await harness.client.newSession({ cwd: "/work", mcpServers: [] });
    const controller = new AbortController();
    const started = Date.now();
    const prompt = harness.client.prompt(
      { sessionId, prompt: [{ type: "text", text: "wait" }] },
      { cancellationSignal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    const response = await prompt;
    assert.equal(response.stopReason, "cancelled");
    assert.equal(sawAbort, true);
    assert.ok(Date.now() - started < 1000);
    // The session is usable again afterwards.
    const controllerless = await harness.client
      .prompt({ sessionId, prompt: [{ type: "text", text: "again" }] }, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    assert.ok(controllerless instanceof Error, "the second turn waits for its own cancel (here: the local timeout)");
  },
);
