import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestPermissionRequest } from "../../protocol/index.js";
import { PermissionBroker } from "./permission-broker.js";
import { CANCELLED_RESPONSE, allowReads, selectOption, type PermissionPolicy } from "./permission-policy.js";

function request(sessionId: string, toolCallId = "c", kind?: "read" | "edit"): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: { toolCallId, ...(kind ? { kind } : {}) },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  };
}

/** A policy that waits for the test to answer, recording each signal. */
function manual() {
  const waiting: { request: RequestPermissionRequest; signal: AbortSignal; answer: (optionId: string) => void }[] = [];
  const policy: PermissionPolicy = (req, { signal }) =>
    new Promise((resolve) => waiting.push({ request: req, signal, answer: (id) => resolve(selectOption(id)) }));
  return { policy, waiting };
}

test(
  "cancelSession answers that session's pending requests " + "cancelled and aborts their policies; others stay",
  async () => {
    const { policy, waiting } = manual();
    const broker = new PermissionBroker(policy);
    const a1 = broker.request(request("A", "1"));
    const a2 = broker.request(request("A", "2"));
    const b1 = broker.request(request("B", "1"));
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(broker.pending().length, 3);
    assert.equal(broker.pending("A").length, 2);
    assert.equal(broker.cancelSession("A"), 2);
    assert.deepEqual(await a1, CANCELLED_RESPONSE);
    assert.deepEqual(await a2, CANCELLED_RESPONSE);
    assert.ok(waiting.filter((w) => w.request.sessionId === "A").every((w) => w.signal.aborted));
    waiting[0]!.answer("allow"); // late answer: ignored
    assert.deepEqual(
      broker.pending().map((p) => p.request.sessionId),
      ["B"],
    );
    waiting.find((w) => w.request.sessionId === "B")!.answer("allow");
    assert.deepEqual(await b1, selectOption("allow"));
    assert.equal(broker.pending().length, 0);
    assert.equal(broker.cancelSession("A"), 0);
    // a request after the cancel is asked normally
    const again = broker.request(request("A", "3"));
    await Promise.resolve();
    await Promise.resolve();
    waiting[waiting.length - 1]!.answer("reject");
    assert.deepEqual(await again, selectOption("reject"));
  },
);

test("a throwing policy or an answer naming an option the agent did not offer fails closed", async () => {
  const errors: unknown[] = [];
  const throwing = new PermissionBroker(
    async () => {
      throw new Error("no UI");
    },
    { onPolicyError: (error) => errors.push(error) },
  );
  assert.deepEqual(await throwing.request(request("s")), selectOption("reject"));
  assert.equal(errors.length, 1);
  const inventing = new PermissionBroker(async () => selectOption("yes please"));
  assert.deepEqual(await inventing.request(request("s")), selectOption("reject"));
  const noReject = new PermissionBroker(async () => selectOption("x"));
  assert.deepEqual(
    await noReject.request({ ...request("s"), options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }] }),
    CANCELLED_RESPONSE,
  );
});

test("the caller's signal and close() answer cancelled", async () => {
  const { policy } = manual();
  const broker = new PermissionBroker(policy);
  const aborted = new AbortController();
  aborted.abort();
  assert.deepEqual(await broker.request(request("s"), aborted.signal), CANCELLED_RESPONSE);
  const later = new AbortController();
  const pending = broker.request(request("s"), later.signal);
  later.abort();
  assert.deepEqual(await pending, CANCELLED_RESPONSE);
  const open = broker.request(request("t"));
  broker.close();
  assert.deepEqual(await open, CANCELLED_RESPONSE);
  assert.equal(broker.pending().length, 0);
});

test("lookupToolCall lets the policy see what the client already knows of the call", async () => {
  const known = {
    toolCallId: "c",
    title: "Read a.ts",
    kind: "read",
    status: "pending",
    content: [],
    locations: [],
    cancelled: true,
  };
  const seen: RequestPermissionRequest[] = [];
  const reads = allowReads();
  const broker = new PermissionBroker((req, ctx) => (seen.push(req), reads(req, ctx)), {
    lookupToolCall: (s, id) => (s === "s" && id === "c" ? known : undefined),
  });
  assert.deepEqual(await broker.request(request("s", "c")), selectOption("allow"));
  assert.equal(seen[0]!.toolCall.title, "Read a.ts");
  assert.equal("cancelled" in seen[0]!.toolCall, false);
  // the request's own fields win
  assert.deepEqual(await broker.request(request("s", "c", "edit")), selectOption("reject"));
  assert.deepEqual(await broker.request(request("other", "c")), selectOption("reject"));
});
