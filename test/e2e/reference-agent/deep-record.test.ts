/**
 * `acp agent` loading a session whose log holds a record it cannot replay, written by other code with a valid
 * checksum: an update whose `_meta` nests 100,000 levels deep (no serializer can write it back out). `session/load`
 * skips that record, reports it (the load answer's `_meta["acpkit/replay"]`, the agent's log) and replays every
 * other record in order, on every load; it never fails with -32603.
 */
import assert from "node:assert/strict";
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { crc32Hex, frameRecord } from "../../../src/node/store/session-log-format.js";
import { makeTempDir, removeTempDir } from "../interop/support/temp.js";
import { startRefAgent, text } from "../fixtures/ref-harness.js";

const DEPTH = 100_000;

/** A log line for an update record whose `_meta` nests `DEPTH` deep, framed with its valid checksum. */
function deepRecordLine(): string {
  const body =
    '{"kind":"update","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"deep"},"_meta":' +
    '{"a":'.repeat(DEPTH) +
    "1" +
    "}".repeat(DEPTH) +
    "}}";
  return `["${crc32Hex(Buffer.from(body))}",${body}]\n`;
}

describe("acp agent: a stored record nested 100,000 deep", () => {
  let root: string;
  let dataDir: string;
  before(() => {
    root = makeTempDir("ref-deep-ws-");
    dataDir = makeTempDir("ref-deep-data-");
  });
  after(() => {
    removeTempDir(root);
    removeTempDir(dataDir);
  });

  it("is skipped and reported on session/load; the records around it are replayed, load after load", async () => {
    const first = await startRefAgent({ root, dataDir });
    const { sessionId } = await first.connection.newSession({ cwd: root, mcpServers: [] });
    await first.connection.prompt(text(sessionId, "before the deep one"));
    await first.stop(500);
    const sessions = join(dataDir, "sessions");
    const log = readdirSync(sessions).find((name) => name.endsWith(".log"))!;
    appendFileSync(join(sessions, log), deepRecordLine());
    appendFileSync(
      join(sessions, log),
      frameRecord({
        kind: "update",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "after it" } },
      }),
    );

    for (let load = 0; load < 2; load++) {
      const agent = await startRefAgent({ root, dataDir });
      try {
        const loaded = await agent.connection.loadSession({ sessionId, cwd: root, mcpServers: [] });
        assert.deepEqual(loaded?._meta?.["acpkit/replay"], { skipped: 1 }, "the skip is reported");
        const said = agent.host.said(sessionId);
        assert.match(JSON.stringify(agent.host.updates), /before the deep one/, "the prompt before it is replayed");
        assert.match(said, /after it/, "the record after it is replayed");
        assert.doesNotMatch(said, /deep$/m, "the deep record itself is not replayed");
        assert.match(agent.stderr(), /skipped a stored update that cannot be replayed/);
      } finally {
        await agent.stop(500);
      }
    }
  });
});
