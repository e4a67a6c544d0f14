/**
 * `acp agent` checks what the client answers: an `fs/read_text_file` answer without a string `content` makes `/edit`
 * (and `/read`) fail saying what was wrong with the client's answer, and the turn ends normally; it is never a
 * `TypeError` turned into -32603, and nothing is written.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type * as acp from "sdk-1.9";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { startRefAgent, text, type RefAgent } from "../fixtures/ref-harness.js";

describe("acp agent: a malformed fs/read_text_file answer", () => {
  let agent: RefAgent;
  let root: string;
  let dataDir: string;
  before(async () => {
    root = makeTempDir("ref-answers-ws-");
    dataDir = makeTempDir("ref-answers-data-");
    writeFileSync(join(root, "notes.txt"), "alpha\n");
    agent = await startRefAgent({ root, dataDir });
  });
  after(async () => {
    await agent.stop(500);
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  for (const [what, answer] of [
    ["no content", {}],
    ["a number for content", { content: 42 }],
    ["null content", { content: null }],
  ] as const) {
    it(`${what}: /edit fails saying the client's answer has no string content; the turn ends end_turn`, async () => {
      agent.host.readTextFile = async () => answer as unknown as acp.ReadTextFileResponse;
      const { sessionId } = await agent.connection.newSession({ cwd: root, mcpServers: [] });
      const from = agent.host.updates.length;
      const response = await agent.connection.prompt(text(sessionId, "/edit notes.txt alpha => beta"));
      assert.equal(response.stopReason, "end_turn");
      const said = agent.host.said(sessionId, from);
      assert.match(
        said,
        /Not edited: could not read .*notes\.txt: The peer's response to "fs\/read_text_file" is not valid: it has no string "content"/,
      );
      assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "alpha\n", "nothing written");
      const failed = agent.host.updates
        .slice(from)
        .map((n) => n.update)
        .filter((update) => update.sessionUpdate === "tool_call_update" && update.status === "failed");
      assert.equal(failed.length, 1, "the edit's tool call failed");
    });
  }
});
