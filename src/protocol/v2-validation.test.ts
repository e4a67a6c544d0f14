/**
 * The protocol v2 validators: what v2's schema asks beyond v1's, compiled by the same generator. A `oneOf` chosen by
 * required keys (the elicitation scopes: exactly one of `sessionId` or `requestId`), RFC 3339 `date-time`, and the
 * v2 update kinds, with the official SDK 2.4.0's zod schemas as the reference for every verdict.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { repoRoot } from "./testing/repo.js";
import { v2Schemas } from "./v2.js";
import { v2UnstableSchemas } from "./v2-unstable.js";

const form = (scope: Record<string, unknown>) => ({
  mode: "form",
  message: "name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
  ...scope,
});

async function official(): Promise<Record<string, { safeParse(value: unknown): { success: boolean } }>> {
  const file = join(repoRoot, "node_modules/@agentclientprotocol/sdk/dist/v2/schema/zod.gen.js");
  return (await import(pathToFileURL(file).href)) as never;
}

describe("v2 validators", () => {
  test("an elicitation is scoped to exactly one of a session or a request, as the official SDK decides", async () => {
    const zod = await official();
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ["session scope", { sessionId: "s1" }, true],
      ["session scope with a tool call", { sessionId: "s1", toolCallId: "t1" }, true],
      ["request scope", { requestId: 7 }, true],
      ["both scopes", { sessionId: "s1", requestId: 7 }, false],
      ["neither scope", {}, false],
      ["a scope key present but undefined counts as absent", { sessionId: "s1", requestId: undefined }, true],
    ];
    for (const [name, scope, valid] of cases) {
      const value = form(scope);
      assert.equal(v2Schemas.CreateElicitationRequest.is(value), valid, name);
      assert.equal(zod.zCreateElicitationRequest!.safeParse(value).success, valid, `${name} (official)`);
    }
    const issues = v2Schemas.CreateElicitationRequest.check(form({ sessionId: "s1", requestId: 7 }));
    assert.ok(
      issues.some((issue) => /exactly one of `sessionId` or `requestId`/.test(issue.expected)),
      JSON.stringify(issues),
    );
  });

  test("the chosen scope is then checked as a whole: a session scope with a bad session id fails", () => {
    assert.equal(v2Schemas.CreateElicitationRequest.is(form({ sessionId: 5 })), false);
  });

  test(
    "updatedAt must be an RFC 3339 date-time; a bad one is " + "dropped by lenient parsing (default on error)",
    async () => {
      const zod = await official();
      const good = ["2026-11-26T09:00:00Z", "2026-11-26T09:00:00.123+01:00", "2026-02-28t23:59:60z"];
      const bad = [
        "yesterday",
        "2026-13-01T00:00:00Z",
        "2026-11-26 09:00:00Z",
        "2026-11-26T09:00:00",
        "2026-11-26T25:00:00Z",
      ];
      for (const updatedAt of good) {
        const info = { sessionId: "s1", cwd: "/w", updatedAt };
        assert.equal(v2Schemas.SessionInfo.is(info), true, updatedAt);
        assert.equal(zod.zSessionInfo!.safeParse(info).success, true, `${updatedAt} (official)`);
      }
      for (const updatedAt of bad) {
        const info = { sessionId: "s1", cwd: "/w", updatedAt };
        assert.equal(v2Schemas.SessionInfo.is(info), false, updatedAt);
        const parsed = v2Schemas.SessionInfo.parse(structuredClone(info)) as Record<string, unknown>;
        assert.equal("updatedAt" in parsed, false, `${updatedAt} dropped`);
      }
    },
  );

  test("v2 update kinds: user_message, state_update with a stop reason, tool_call_update upserts, plan_update", () => {
    const update = (u: Record<string, unknown>) => ({ sessionId: "s1", update: u });
    const valid = [
      { sessionUpdate: "user_message", messageId: "u1", content: [{ type: "text", text: "hi" }] },
      { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } },
      { sessionUpdate: "state_update", state: "running" },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
      { sessionUpdate: "tool_call_update", toolCallId: "t1", title: "read", status: "in_progress" },
    ];
    for (const u of valid)
      assert.deepEqual(v2Schemas.UpdateSessionNotification.check(update(u)), [], JSON.stringify(u));
    // v2 requires the message id on chunks, which v1 did not.
    assert.equal(
      v2Schemas.UpdateSessionNotification.is(
        update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }),
      ),
      false,
    );
  });

  test("the unstable set knows MCP-over-ACP servers; the stable one reads an acp server as an unknown variant", () => {
    const acp = { type: "acp", name: "tools", serverId: "srv-1" };
    assert.equal(v2UnstableSchemas.McpServer.is(acp), true);
    assert.deepEqual(v2Schemas.McpServer.check({ type: "stdio", name: "x", command: "/bin/x", args: [], env: [] }), []);
  });
});
