import assert from "node:assert/strict";
import { test } from "node:test";
import { BodyBudget, readBodyText } from "./request-body.js";

/** A POST whose body sends `chunks` (each a byte count) and then stalls unless `end`. */
function slowRequest(chunks: number[], end = false): { request: Request; cancelled: Promise<void> } {
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const size of chunks) controller.enqueue(new Uint8Array(size).fill(0x20));
      if (end) controller.close();
    },
    cancel: () => onCancel(),
  });
  const request = new Request("http://127.0.0.1/acp", { method: "POST", body, duplex: "half" } as RequestInit);
  return { request, cancelled };
}

test("a body still arriving at the deadline is 408, and its stream is cancelled", async () => {
  const { request, cancelled } = slowRequest([10]);
  const started = Date.now();
  const read = await readBodyText(request, { maxBytes: 1000, timeoutMs: 100 });
  assert.equal(typeof read === "string" ? read : read.status, 408);
  assert.ok(Date.now() - started >= 90);
  await cancelled;
});

test("bodies being read share one budget: one that would pass it is 503 with Retry-After, and gives back what it took", async () => {
  const budget = new BodyBudget(1000);
  const first = slowRequest([600]);
  const reading = readBodyText(first.request, { maxBytes: 10_000, timeoutMs: 300, budget });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(budget.held, 600);
  const second = slowRequest([300, 300], true);
  const refused = await readBodyText(second.request, { maxBytes: 10_000, timeoutMs: 1000, budget });
  assert.ok(typeof refused !== "string");
  assert.equal(refused.status, 503);
  assert.equal(refused.headers?.["Retry-After"], "1");
  assert.match(refused.message, /maxBufferedRequestBytes/);
  assert.equal(budget.held, 600, "the refused body gave back its 300 bytes");
  const timedOut = await reading;
  assert.ok(typeof timedOut !== "string" && timedOut.status === 408);
  assert.equal(budget.held, 0, "and the first gave back its 600 at its end");
  const whole = await readBodyText(slowRequest([400, 400], true).request, { maxBytes: 1000, timeoutMs: 1000, budget });
  assert.equal(whole, " ".repeat(800), "a body that fits is read whole");
  assert.equal(budget.held, 0);
});

test("over maxBytes: 413 by Content-Length before reading, or as soon as what arrived passes it", async () => {
  const declared = new Request("http://127.0.0.1/acp", {
    method: "POST",
    body: "x".repeat(20),
    headers: { "content-length": "20" },
  });
  const early = await readBodyText(declared, { maxBytes: 10, timeoutMs: 1000 });
  assert.ok(typeof early !== "string" && early.status === 413);
  const late = await readBodyText(slowRequest([8, 8]).request, { maxBytes: 10, timeoutMs: 1000 });
  assert.ok(typeof late !== "string" && late.status === 413);
});
