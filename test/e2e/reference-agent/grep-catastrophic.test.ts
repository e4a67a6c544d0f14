/**
 * `/grep` with a catastrophic regular expression (`(a+)+$` on a line of a's ending in "!") against `acp agent` as a
 * real process: the search runs off the event loop, so the cancel is answered promptly and the next request too;
 * a search past the agent's time limit is stopped and reported as a failed tool call.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type * as acp from "sdk-1.9";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { promptIn, startRefAgent, text, type RefAgent } from "../fixtures/ref-harness.js";

let root: string;
let dataDir: string;
const agents: RefAgent[] = [];

before(() => {
  root = makeTempDir("ref-grep-ws-");
  dataDir = makeTempDir("ref-grep-data-");
  // 2^40 backtracking steps for (a+)+$: hours of work for a regex engine that blocks.
  writeFileSync(join(root, "evil.txt"), `${"a".repeat(40)}!\n`);
});
after(async () => {
  await Promise.all(agents.map((agent) => agent.stop()));
  removeTempDir(root);
  removeTempDir(dataDir);
});

async function started(args: string[] = []) {
  const agent = await startRefAgent({ root, dataDir, args });
  agents.push(agent);
  const { sessionId } = await agent.connection.newSession({ cwd: root, mcpServers: [] });
  return { agent, sessionId };
}

const searching = (agent: RefAgent, sessionId: string) =>
  agent.host.until(
    () => agent.host.of(sessionId).some((u) => u.sessionUpdate === "tool_call" && u.kind === "search"),
    20_000,
    "the search tool call",
  );

test(
  "a catastrophic /grep does not freeze the agent: the cancel " + "is answered promptly, then another request",
  async () => {
    // A time limit far beyond the test's: only the cancel can end this search.
    const { agent, sessionId } = await started(["--grep-time-limit", "3600000"]);
    const turn = agent.connection.prompt(text(sessionId, "/grep (a+)+$"));
    await searching(agent, sessionId);
    await agent.connection.cancel({ sessionId });
    const response = await turn;
    assert.equal(response.stopReason, "cancelled");
    const next = await agent.connection.newSession({ cwd: root, mcpServers: [] });
    assert.ok(next.sessionId);
    const { said } = await promptIn(agent, next.sessionId, "/grep alpha");
    assert.equal(said, "no matches for alpha", "searching works afterwards");
  },
);

test(
  "other requests are served while a search runs; past the time limit the search is stopped and the tool call " +
    "fails",
  async () => {
    const { agent, sessionId } = await started(["--grep-time-limit", "1500"]);
    const turn = promptIn(agent, sessionId, "/grep (a+)+$");
    await searching(agent, sessionId);
    const other = await agent.connection.newSession({ cwd: root, mcpServers: [] });
    assert.ok(other.sessionId, "served while the search runs");
    const { response, said, updates } = await turn;
    assert.equal(response.stopReason, "end_turn");
    assert.match(
      said,
      /stopped: the search took longer than 1500 ms and was stopped; the pattern may backtrack catastrophically/,
    );
    const failed = updates.find(
      (u): u is acp.ToolCallUpdate & { sessionUpdate: "tool_call_update" } =>
        u.sessionUpdate === "tool_call_update" && u.status === "failed",
    );
    assert.ok(failed, "the tool call failed");
  },
);
