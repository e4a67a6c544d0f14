import assert from "node:assert/strict";
import { test } from "node:test";
import type { RequestPermissionRequest } from "../../protocol/index.js";
import { brokerGate } from "./host-gate.js";
import { PermissionBroker } from "./permission-broker.js";
import { allowAll, allowReads, denyAll, interactive, type PermissionPolicy } from "./permission-policy.js";

const read = { kind: "read" as const, sessionId: "s1", path: "/w/a.txt" };
const write = { kind: "write" as const, sessionId: "s1", path: "/w/a.txt" };
const terminal = { kind: "terminal" as const, sessionId: "s1", command: "make", args: ["test"], cwd: "/w" };

function agentAsks(kind: "edit" | "execute", path?: string): RequestPermissionRequest {
  return {
    sessionId: "s1",
    toolCall: { toolCallId: `t-${kind}`, title: "x", kind, ...(path ? { locations: [{ path }] } : {}) },
    options: [
      { optionId: "y", name: "Yes", kind: "allow_once" },
      { optionId: "n", name: "No", kind: "reject_once" },
    ],
  };
}

test("the named policies govern the hosts: deny-all none, allow-reads reads only, allow-all all", async () => {
  const verdicts = async (policy: PermissionPolicy) => {
    const gate = brokerGate(new PermissionBroker(policy), { policyName: "p" });
    return Promise.all([gate(read), gate(write), gate(terminal)]);
  };
  const refused = "the client's permission policy (p) refused it";
  assert.deepEqual(await verdicts(denyAll()), [refused, refused, refused]);
  assert.deepEqual(await verdicts(allowReads()), [true, refused, refused]);
  assert.deepEqual(await verdicts(allowAll()), [true, true, true]);
});

test(
  "an interactive policy is asked about writes and commands (a request describing them), not about reads with " +
    "reads: serve",
  async () => {
    const asked: RequestPermissionRequest[] = [];
    const broker = new PermissionBroker(interactive((request) => (asked.push(request), { decision: "reject" })));
    const gate = brokerGate(broker, { reads: "serve" });
    assert.equal(await gate(read), true);
    assert.match(String(await gate(write)), /refused/);
    assert.match(String(await gate(terminal)), /refused/);
    assert.deepEqual(
      asked.map((r) => [r.toolCall.kind, r.toolCall.title, r.toolCall.locations]),
      [
        ["edit", "Write /w/a.txt", [{ path: "/w/a.txt" }]],
        ["execute", "Run make test (in /w)", [{ path: "/w" }]],
      ],
    );
  },
);

test(
  "a permission the agent obtained covers the matching host access (same session, kind and path), without " +
    "asking again",
  async () => {
    let questions = 0;
    const broker = new PermissionBroker(interactive(() => (++questions, { decision: "allow" })));
    const gate = brokerGate(broker);
    await broker.request(agentAsks("edit", "/w/./a.txt"));
    await broker.request(agentAsks("execute"));
    assert.equal(questions, 2);
    assert.equal(await gate(write), true, "the edit grant covers the write of its path");
    assert.equal(await gate(read), true, "and reading it");
    assert.equal(await gate(terminal), true, "the execute grant covers a command");
    assert.equal(questions, 2, "nothing asked twice");
    assert.equal(await gate({ ...write, path: "/w/b.txt" }), true);
    assert.equal(questions, 3, "another path is asked");
    assert.equal(await gate({ ...write, sessionId: "s2" }), true);
    assert.equal(questions, 4, "another session is asked");
    const diff = agentAsks("edit");
    diff.toolCall.content = [{ type: "diff", path: "/w/c.txt", oldText: null, newText: "c" }];
    await broker.request(diff);
    assert.equal(await gate({ ...write, path: "/w/c.txt" }), true);
    assert.equal(questions, 5, "a diff's path is covered too");
  },
);

test("a rejected or expired grant covers nothing; a cancelled turn refuses", async () => {
  let answer: "allow" | "reject" = "reject";
  const broker = new PermissionBroker(interactive(() => ({ decision: answer })));
  const gate = brokerGate(broker, { coverMs: -1 });
  await broker.request(agentAsks("edit", "/w/a.txt"));
  assert.match(String(await gate(write)), /refused/);
  answer = "allow";
  await broker.request(agentAsks("edit", "/w/a.txt"));
  answer = "reject";
  assert.match(String(await gate(write)), /refused/, "the grant expired");
  const pending = new PermissionBroker(() => new Promise(() => {}));
  const waiting = brokerGate(pending)(write);
  pending.cancelSession("s1");
  assert.match(String(await waiting), /cancelled/);
});
