import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { allowAll, type PermissionPolicy } from "@acpkit/sdk/client-toolkit";
import type { RequestPermissionRequest, ToolKind } from "@acpkit/sdk";
import { buildPolicy } from "./permissions.js";
import { UsageError } from "./usage-error.js";

const dir = mkdtempSync(join(tmpdir(), "acpkit-permissions-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const request = (kind: ToolKind): RequestPermissionRequest => ({
  sessionId: "s1",
  toolCall: { toolCallId: "t1", title: `a ${kind}`, kind },
  options: [
    { optionId: "yes", name: "Allow", kind: "allow_once" },
    { optionId: "no", name: "Reject", kind: "reject_once" },
  ],
});
const chosen = async (policy: PermissionPolicy, kind: ToolKind) => {
  const response = await policy(request(kind), { signal: new AbortController().signal });
  return response.outcome.outcome === "selected" ? response.outcome.optionId : "cancelled";
};

test("no flag: ask when the command can ask, else allow-reads", async () => {
  const ask = allowAll();
  assert.deepEqual(buildPolicy(undefined, { ask: () => ask }), { name: "ask", policy: ask });
  const fallback = buildPolicy(undefined, { ask: undefined });
  assert.equal(fallback.name, "allow-reads");
  assert.deepEqual([await chosen(fallback.policy, "read"), await chosen(fallback.policy, "edit")], ["yes", "no"]);
});

test("ask where the command cannot ask is a usage error saying why", () => {
  assert.throws(
    () => buildPolicy("ask", { ask: undefined, cannotAsk: "needs a terminal" }),
    (error) => error instanceof UsageError && /^--permissions ask needs a terminal; use allow-all/.test(error.message),
  );
});

test("rules files: the first matching rule decides, otherwise the rest; bad files are usage errors", async () => {
  const file = join(dir, "rules.json");
  writeFileSync(file, JSON.stringify({ rules: [{ kind: "edit", decision: "allow" }], otherwise: "deny-all" }));
  const named = buildPolicy({ rulesFile: file }, { ask: undefined });
  assert.equal(named.name, `rules:${file}`);
  assert.deepEqual([await chosen(named.policy, "edit"), await chosen(named.policy, "execute")], ["yes", "no"]);
  writeFileSync(file, JSON.stringify([{ kind: "edit", decision: "maybe" }]));
  assert.throws(
    () => buildPolicy({ rulesFile: file }, { ask: undefined }),
    /rules\[0\]\.decision must be "allow", "reject" or "ask"/,
  );
  writeFileSync(file, JSON.stringify({ rules: [], otherwise: "ask" }));
  assert.throws(
    () => buildPolicy({ rulesFile: file }, { ask: undefined, cannotAsk: "needs a terminal" }),
    /--permissions ask needs a terminal/,
  );
  assert.throws(() => buildPolicy({ rulesFile: join(dir, "missing.json") }, { ask: undefined }), UsageError);
});
