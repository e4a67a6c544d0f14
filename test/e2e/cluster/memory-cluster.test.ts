/**
 * The cluster scenarios over real sockets on three `listenAcp` servers in this process that share one in-memory
 * backend object (what the backend seam allows without a database): any request of a connection may reach any of
 * them; the agent (`fixtures/cluster-agent.ts`, a real child process) runs on the server that answered `initialize`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MemoryServerBackend } from "../../../src/remote/server/backend/memory-backend.js";
import { listenAcp } from "../../../src/node/server/listen.js";
import { stdioAgentConnector } from "../../../src/node/server/stdio-agent-connector.js";
import { fixturePath } from "../interop/support/spawn.js";
import { conformanceScenario, resumeScenario } from "./support/scenarios.js";

type Listening = Awaited<ReturnType<typeof listenAcp>>;

const agent = stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] });
let servers: Listening[] = [];
let requestIds = 0;

before(async () => {
  const backend = new MemoryServerBackend({
    serverRequestId: (_connectionId, nodeId) => `${nodeId}-${++requestIds}`,
  });
  servers = await Promise.all(
    [0, 1, 2].map(() =>
      listenAcp({
        agent,
        backend,
        insecureNoToken: true,
        // The resume scenario drops responses with up to a whole turn in flight on loopback: keep all of it.
        maxRetainedBytes: 16 * 1024 * 1024,
      }),
    ),
  );
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** Waits until no agent process of the connector is running (they stop once their connection ended). */
async function agentsStopped(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (agent.running.size > 0) {
    assert.ok(Date.now() < deadline, `${agent.running.size} agent processes still running 10 s after the DELETE`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("the servers are three nodes of one backend", () => {
  assert.deepEqual(
    servers.map((server) => server.server.nodeId),
    ["node-1", "node-2", "node-3"],
  );
});

test("conformance: initialize on A, session/new and the prompt on B, the streams on C, answers through A, DELETE on B, then 404 everywhere", async () => {
  const report = await conformanceScenario(
    { nodes: servers.map((server) => server.url) },
    // The agent runs on A (node-1): the ids of its requests to the client come from there.
    { serverRequestId: /^node-1-\d+$/ },
  );
  assert.equal(report.serverRequestIds.length, 2);
  await agentsStopped();
  for (const server of servers) assert.equal(server.server.connectionCount, 0);
});

test("the agent runs on the node that answered initialize, and only there", async () => {
  const [a, b, c] = servers;
  const nodes = [b!.url, c!.url, a!.url];
  const report = resumeScenario({ nodes }, { chunks: 200, pieces: [50] });
  // While the turn runs, the connection is hosted by the first node of this target (b).
  while (b!.server.connectionCount === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(a!.server.connectionCount + c!.server.connectionCount, 0);
  await report;
  await agentsStopped();
});

test("a 20,000-chunk turn read in pieces from node after node with Last-Event-ID arrives exactly", async () => {
  const report = await resumeScenario({ nodes: servers.map((server) => server.url) });
  assert.ok(report.resumes >= 4, `resumed ${report.resumes} times`);
  assert.equal(report.nodesRead, 3);
  await agentsStopped();
});
