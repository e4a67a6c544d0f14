/**
 * A session runs once in a cluster: `session/load` of a session live on another node is refused (-32013, with the
 * node and the way to join it, `session/attach`), whether the session was opened over Streamable HTTP or a WebSocket,
 * as it is on the node that runs it, instead of starting a second agent
 * on it. Two `listenAcp` nodes, each with its own `PostgresServerBackend`, on one real PostgreSQL started for this file;
 * clients over real sockets. A load of a session live nowhere still reaches the connection's agent, and calls sent
 * right behind a load wait for the cluster's answer, then go on in order.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { postgresUnavailable } from "../../../src/node/testing/postgres-server.js";
import { postgresNodes } from "./support/postgres-nodes.js";
import { acpkitParticipant, type TestParticipant } from "../shared/support/participants.js";
import { sharedTestAgent } from "../shared/support/shared-agent.js";

const unavailable = postgresUnavailable();
const STEP = { skip: unavailable, timeout: 60_000 };
const TOKEN = "load-live-token";
/** The sessions this file's agent was asked to load (it loads any: it has nothing to replay). */
const loaded: string[] = [];
const agent = sharedTestAgent().onRequest("session/load", ({ params }) => {
  loaded.push(params.sessionId);
  return {};
});
const nodes = postgresNodes(agent, TOKEN);
const { servers, open } = nodes;

before(() => nodes.start());
after(() => nodes.close());

async function participant(name: string, node: number, profile: "http" | "websocket"): Promise<TestParticipant> {
  const server = servers[node]!;
  const made = await acpkitParticipant(
    name,
    { url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN },
    profile,
  );
  open.push(made);
  return made;
}

/** The error a request was answered with (the request must fail). */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string; data?: any }> {
  try {
    await request;
  } catch (error) {
    return error as { code: number; message: string; data?: any };
  }
  assert.fail("the request succeeded");
}

for (const openerProfile of ["http", "websocket"] as const)
  it(
    `a load of a session live on another node (opened over ${openerProfile}) is refused: attach instead`,
    STEP,
    async () => {
      const opener = await participant("opener", 0, openerProfile);
      const { sessionId } = await opener.request("session/new", { cwd: "/tmp", mcpServers: [] });
      await opener.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "stream 2" }] });

      for (const profile of ["http", "websocket"] as const) {
        const other = await participant(`loader over ${profile}`, 1, profile);
        const refused = await refusal(other.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] }));
        assert.equal(refused.code, -32013, refused.message);
        assert.match(refused.message, new RegExp(`Session ${sessionId} is live on node .* of this cluster`));
        assert.match(refused.message, /join it with session\/attach/);
        assert.equal(refused.data?.sessionId, sessionId);
        assert.equal(typeof refused.data?.node, "string");
        // Joining it the way the error says works, through the same node: the history comes with it.
        const attached = await other.request("session/attach", { sessionId, role: "observer", historyPolicy: "full" });
        assert.ok(attached, "attached");
        await other.until(() => other.texts.includes("u1"), "the replayed history");
      }
      // No agent was asked to load it a second time; its one turn's updates came once each to the opener.
      assert.deepEqual(loaded, []);
      assert.deepEqual(opener.texts, ["u0", "u1"]);
    },
  );

it("on the node that runs it, too (one node's answer)", STEP, async () => {
  const opener = await participant("opener", 0, "http");
  const { sessionId } = await opener.request("session/new", { cwd: "/tmp", mcpServers: [] });
  const other = await participant("same-node loader", 0, "websocket");
  const refused = await refusal(other.request("session/resume", { sessionId, cwd: "/tmp", mcpServers: [] }));
  assert.equal(refused.code, -32013);
  assert.match(refused.message, new RegExp(`Session ${sessionId} is live on this server`));
  assert.equal(refused.data?.node, undefined);
});

it("a load of a session live nowhere goes to the agent; calls behind it follow in order", STEP, async () => {
  const loader = await participant("loader", 1, "websocket");
  const load = loader.request("session/load", { sessionId: "never-opened", cwd: "/tmp", mcpServers: [] });
  // Sent right behind the load, before the cluster answered: held, then passed on.
  const created = loader.request("session/new", { cwd: "/tmp", mcpServers: [] });
  const answered: string[] = [];
  const [, session] = await Promise.all([
    load.then(() => answered.push("load")),
    created.then((result) => (answered.push("new"), result)),
  ]);
  // The agent loaded it (its own answer), then created the next session: the order the client sent them in.
  assert.deepEqual(loaded, ["never-opened"]);
  assert.equal(typeof session.sessionId, "string");
  assert.deepEqual(answered, ["load", "new"]);
  const turn = await loader.request("session/prompt", {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: "stream 1" }],
  });
  assert.equal(turn.stopReason, "end_turn");
});
