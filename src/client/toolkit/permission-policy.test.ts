import assert from "node:assert/strict";
import { test } from "node:test";
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  ToolKind,
} from "../../protocol/index.js";
import {
  CANCELLED_RESPONSE,
  PermissionTimeoutError,
  allowAll,
  allowReads,
  denyAll,
  interactive,
  selectOption,
  withMemory,
  withTimeout,
  type PermissionPolicy,
} from "./permission-policy.js";

const ALL_KINDS: PermissionOptionKind[] = ["allow_once", "allow_always", "reject_once", "reject_always"];
const option = (kind: PermissionOptionKind): PermissionOption => ({ optionId: `opt-${kind}`, name: kind, kind });

function request(
  kind: ToolKind | undefined,
  kinds: PermissionOptionKind[] = ALL_KINDS,
  sessionId = "s1",
): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: { toolCallId: `call-${Math.random()}`, title: `a ${kind ?? "kindless"} call`, ...(kind ? { kind } : {}) },
    options: kinds.map(option),
  };
}

const context = () => ({ signal: new AbortController().signal });
const chosen = async (policy: PermissionPolicy, req: RequestPermissionRequest) => {
  const response = await policy(req, context());
  return response.outcome.outcome === "selected" ? response.outcome.optionId : "cancelled";
};

test(
  "allowAll picks allow_once, else allow_always, else rejects; denyAll picks reject_once, else reject_always, " +
    "else cancelled",
  async () => {
    assert.equal(await chosen(allowAll(), request("edit")), "opt-allow_once");
    assert.equal(await chosen(allowAll(), request("edit", ["reject_once", "allow_always"])), "opt-allow_always");
    assert.equal(await chosen(allowAll(), request("edit", ["reject_always"])), "opt-reject_always");
    assert.equal(await chosen(allowAll(), request("edit", [])), "cancelled");
    assert.equal(await chosen(denyAll(), request("read")), "opt-reject_once");
    assert.equal(await chosen(denyAll(), request("read", ["allow_once", "reject_always"])), "opt-reject_always");
    assert.equal(await chosen(denyAll(), request("read", ["allow_once", "allow_always"])), "cancelled");
  },
);

test("allowReads allows read, search, think and fetch; the rest goes to the fallback (default reject)", async () => {
  for (const kind of ["read", "search", "think", "fetch"] as const)
    assert.equal(await chosen(allowReads(), request(kind)), "opt-allow_once");
  for (const kind of ["edit", "delete", "move", "execute", "switch_mode", "other", undefined] as const) {
    assert.equal(await chosen(allowReads(), request(kind)), "opt-reject_once");
  }
  assert.equal(await chosen(allowReads(allowAll()), request("execute")), "opt-allow_once");
});

test("interactive maps option ids, decisions, whole responses and dismissals; unknown ids fail closed", async () => {
  const asked: string[] = [];
  const ask = (answer: unknown) =>
    interactive((req) => {
      asked.push(req.toolCall.title ?? "");
      return answer as never;
    });
  assert.equal(await chosen(ask("opt-allow_always"), request("edit")), "opt-allow_always");
  assert.equal(await chosen(ask({ decision: "allow" }), request("edit")), "opt-allow_once");
  assert.equal(await chosen(ask(selectOption("opt-reject_always")), request("edit")), "opt-reject_always");
  assert.equal(await chosen(ask(null), request("edit")), "cancelled");
  assert.equal(await chosen(ask("made-up"), request("edit")), "opt-reject_once");
  assert.equal(await chosen(ask(selectOption("made-up")), request("edit")), "opt-reject_once");
  assert.equal(
    await chosen(
      interactive(async () => "opt-allow_once"),
      request("edit"),
    ),
    "opt-allow_once",
  );
  assert.equal(asked.length, 6);
});

test(
  "withMemory remembers allow_always and reject_always per " + "session and tool kind, with the agent's own options",
  async () => {
    const answers: string[] = [];
    let calls = 0;
    const memory = withMemory(async () => {
      calls++;
      return selectOption(answers.shift() ?? "opt-reject_once");
    });
    answers.push("opt-allow_always");
    assert.equal(await chosen(memory, request("edit")), "opt-allow_always");
    assert.equal(memory.remembered("s1", "edit"), "allow");
    assert.equal(await chosen(memory, request("edit")), "opt-allow_always"); // remembered
    assert.equal(await chosen(memory, request("edit", ["allow_once", "reject_once"])), "opt-allow_once"); // no allow_always offered
    assert.equal(calls, 1);
    // another kind, another session: asked
    answers.push("opt-allow_once", "opt-allow_once");
    assert.equal(await chosen(memory, request("execute")), "opt-allow_once");
    assert.equal(await chosen(memory, request("edit", ALL_KINDS, "s2")), "opt-allow_once");
    assert.equal(calls, 3);
    assert.equal(memory.remembered("s1", "execute"), undefined); // allow_once is not remembered
    // reject_always
    answers.push("opt-reject_always");
    assert.equal(await chosen(memory, request("delete")), "opt-reject_always");
    assert.equal(await chosen(memory, request("delete", ["allow_once", "reject_once"])), "opt-reject_once");
    assert.equal(calls, 4);
    // the agent offers nothing of the remembered family: the inner policy decides
    answers.push("opt-allow_once");
    assert.equal(await chosen(memory, request("delete", ["allow_once"])), "opt-allow_once");
    assert.equal(calls, 5);
    // a kindless request counts as other
    answers.push("opt-allow_always");
    await chosen(memory, request(undefined));
    assert.equal(memory.remembered("s1", "other"), "allow");
    assert.equal(await chosen(memory, request("other")), "opt-allow_always");
    memory.forget("s1");
    assert.equal(memory.remembered("s1", "edit"), undefined);
    memory.forget();
    assert.equal(memory.remembered("s2", "edit"), undefined);
  },
);

test("withTimeout fails closed: reject option if offered, else cancelled, and aborts the inner policy", async () => {
  let reason: unknown;
  const never: PermissionPolicy = (_req, ctx) =>
    new Promise(() => {
      ctx.signal.addEventListener("abort", () => (reason = ctx.signal.reason));
    });
  assert.equal(await chosen(withTimeout(never, 5), request("edit")), "opt-reject_once");
  assert.ok(reason instanceof PermissionTimeoutError);
  assert.equal(
    await chosen(withTimeout(never, 5), request("edit", ["allow_once", "reject_always"])),
    "opt-reject_always",
  );
  assert.deepEqual(await withTimeout(never, 5)(request("edit", ["allow_once"]), context()), CANCELLED_RESPONSE);
  // in time: the inner answer stands
  assert.equal(await chosen(withTimeout(allowAll(), 1000), request("edit")), "opt-allow_once");
  // a throwing or invalid inner policy fails closed too
  const throwing: PermissionPolicy = async () => {
    throw new Error("no UI");
  };
  assert.equal(await chosen(withTimeout(throwing, 1000), request("edit")), "opt-reject_once");
  assert.equal(
    await chosen(
      withTimeout(async () => selectOption("nope"), 1000),
      request("edit"),
    ),
    "opt-reject_once",
  );
});

test("withTimeout passes the caller's abort on to the inner policy", async () => {
  const outer = new AbortController();
  let aborted = false;
  const waiting: PermissionPolicy = (_req, ctx) =>
    new Promise((resolve) => {
      const stop = () => {
        aborted = true;
        resolve(CANCELLED_RESPONSE);
      };
      if (ctx.signal.aborted) stop();
      else ctx.signal.addEventListener("abort", stop);
    });
  const answer = withTimeout(waiting, 1000)(request("edit"), { signal: outer.signal });
  outer.abort();
  assert.deepEqual(await answer, CANCELLED_RESPONSE);
  assert.equal(aborted, true);
});
