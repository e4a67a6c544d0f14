/**
 * Testing a client against a recorded agent: record one conversation with the real agent (toolkit-agent.js) once,
 * then, in every test after that, let the recording play the agent to the client under test, in memory, without
 * the agent. The replay reports every place where the client did something else than when it was recorded: here,
 * a client that answers the permission request with another option than the recorded one.
 *
 *   node --test dist/examples/cassette.test.js
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ClientSideConnection, ndJsonStream, type Client, type Stream } from "@acpkit/sdk";
import { launchAgent } from "@acpkit/sdk/node";
import {
  CassetteRecorder,
  createMemoryByteStreams,
  readCassette,
  replayAgent,
  scriptPeerOverWeb,
} from "@acpkit/sdk/wire";

/** The client under test: answers permission requests with the first option of `kind`, runs one turn. */
async function turn(
  stream: Stream,
  kind: "allow_once" | "reject_once",
  onConnection = (_: ClientSideConnection) => {},
) {
  const client: Client = {
    async sessionUpdate() {},
    async requestPermission({ options }) {
      const option = options.find((candidate) => candidate.kind === kind);
      return option
        ? { outcome: { outcome: "selected", optionId: option.optionId } }
        : { outcome: { outcome: "cancelled" } };
    },
  };
  const connection = new ClientSideConnection(() => client, stream);
  onConnection(connection);
  await connection.initialize({ protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.newSession({ cwd: "/work/project", mcpServers: [] });
  const { stopReason } = await connection.prompt({ sessionId, prompt: [{ type: "text", text: "count these words" }] });
  connection.close();
  return stopReason;
}

let dir: string;
let cassette: string;

// Once, against the real agent: record what crosses the wire.
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "acpkit-example-cassette-"));
  cassette = join(dir, "count.cassette");
  const agent = await launchAgent({
    argv: [process.execPath, fileURLToPath(new URL("./toolkit-agent.js", import.meta.url))],
    extraEnv: { ACPKIT_DATA_DIR: join(dir, "data") },
  });
  const recorder = new CassetteRecorder((line) => appendFileSync(cassette, `${line}\n`), {
    tool: { name: "example-tests", version: "1" },
  });
  try {
    const stopReason = await turn(agent.stream, "allow_once", (connection) =>
      connection.tap(recorder.tapListener("client")),
    );
    assert.equal(stopReason, "end_turn");
  } finally {
    recorder.close();
    await agent.stop();
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

/** Plays the recorded agent to a client answering with `kind`; returns the client's stop reason and the replay. */
async function replayTo(kind: "allow_once" | "reject_once") {
  const [agentEnd, clientEnd] = createMemoryByteStreams();
  const played = replayAgent(
    readCassette(readFileSync(cassette, "utf8")),
    scriptPeerOverWeb(agentEnd.input, agentEnd.output, { side: "agent" }),
    { timeoutMs: 5_000 },
  );
  const stopReason = await turn(ndJsonStream(clientEnd.output, clientEnd.input), kind);
  return { stopReason, replay: await played };
}

test("the client does what it did when recorded: no divergence", async () => {
  const { stopReason, replay } = await replayTo("allow_once");
  assert.equal(stopReason, "end_turn");
  assert.deepEqual(replay.divergences, []);
  assert.equal(replay.completed, true);
});

test("a client that chooses another permission option diverges, and the replay says where", async () => {
  const { replay } = await replayTo("reject_once");
  const permission = replay.divergences.find((divergence) => divergence.frame.includes("session/request_permission"));
  assert.ok(permission, `expected a divergence on the permission answer, got ${JSON.stringify(replay.divergences)}`);
  assert.equal(permission.kind, "differs");
  assert.equal(permission.differences?.[0]?.path, "$.result.outcome.optionId");
});
