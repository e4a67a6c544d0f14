/**
 * The cluster scenarios over real sockets on three `listenAcp` servers, each with its own `PostgresServerBackend`
 * (its own pool and LISTEN connection) on one real PostgreSQL started for this file: the official conformance
 * scenarios (initialize on A, session/new and the prompt on B, the streams on C, answers through A, DELETE on B,
 * then 404 everywhere) and a 20,000-chunk turn read in pieces from node after node with Last-Event-ID. Nothing is
 * shared between the nodes but the database.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { silentLogger } from "../../../src/jsonrpc/logger.js";
import { PostgresServerBackend } from "../../../src/node/cluster/index.js";
import { listenAcp } from "../../../src/node/server/listen.js";
import { stdioAgentConnector } from "../../../src/node/server/stdio-agent-connector.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { fixturePath } from "../interop/support/spawn.js";
import { conformanceScenario, resumeScenario } from "./support/scenarios.js";

type Listening = Awaited<ReturnType<typeof listenAcp>>;

const unavailable = postgresUnavailable();
const agent = stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] });
let database: TestPostgres | undefined;
const backends: PostgresServerBackend[] = [];
const servers: Listening[] = [];
const token = "cluster-test-token";
/** Also valid on every node (a second user, or a token being rotated in). */
const otherToken = "cluster-other-token";

before(async () => {
  if (unavailable !== undefined) return;
  database = await startTestPostgres();
  for (let i = 0; i < 3; i++) {
    const backend = await PostgresServerBackend.open({
      database: { connectionString: database.connectionString, logger: silentLogger },
      connector: agent,
      nodeName: `node${i}`,
    });
    backends.push(backend);
    servers.push(await listenAcp({ agent, backend, token: [token, otherToken], logger: silentLogger }));
  }
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(backends.map((backend) => backend.close()));
  await database?.close();
});

async function agentsStopped(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (agent.running.size > 0) {
    assert.ok(Date.now() < deadline, `${agent.running.size} agent processes still running 10 s after the DELETE`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const target = () => ({ nodes: servers.map((server) => server.url), token });

test(
  "conformance over PostgreSQL: initialize on A, session/new and the prompt on B, the streams on C, answers through A, DELETE on B, then 404 everywhere",
  { skip: unavailable },
  async () => {
    const nodeA = servers[0]!.server.nodeId;
    const report = await conformanceScenario(target(), {
      // The agent runs on A: the ids of its requests to the client are A's, unique across the nodes.
      serverRequestId: new RegExp(`^${nodeA}-\\d+$`),
    });
    assert.equal(report.connectionId.length, 24, "144 random bits, base64url");
    await agentsStopped();
    for (const server of servers) assert.equal(server.server.connectionCount, 0);
  },
);

test("every node checks the token", { skip: unavailable }, async () => {
  for (const server of servers) {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }),
    });
    await response.body?.cancel();
    assert.equal(response.status, 401, `no token on ${server.url}`);
  }
});

test(
  "a connection opened on A with one token is refused (403) on B and C with another valid token, on every method",
  { skip: unavailable },
  async () => {
    const call = (node: number, bearer: string, init: RequestInit & { headers?: Record<string, string> }) =>
      fetch(servers[node]!.url, {
        ...init,
        headers: { authorization: `Bearer ${bearer}`, accept: "application/json, text/event-stream", ...init.headers },
      });
    const opened = await call(0, token, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    });
    assert.equal(opened.status, 200);
    await opened.body?.cancel();
    const connectionId = opened.headers.get("acp-connection-id")!;
    const newSession = {
      method: "POST",
      headers: { "content-type": "application/json", "acp-connection-id": connectionId },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } }),
    };
    const stream = { method: "GET", headers: { accept: "text/event-stream", "acp-connection-id": connectionId } };
    const remove = { method: "DELETE", headers: { "acp-connection-id": connectionId } };
    for (const [node, init] of [
      [1, newSession],
      [2, stream],
      [1, remove],
    ] as const) {
      const refused = await call(node, otherToken, init);
      assert.equal(refused.status, 403, `${init.method} on node ${node} with the other token`);
      assert.match(await refused.text(), /opened with another credential/);
    }
    const accepted = await call(1, token, newSession);
    assert.equal(accepted.status, 202, "its own token works on another node");
    await accepted.body?.cancel();
    const removed = await call(2, token, remove);
    assert.equal(removed.status, 202);
    await removed.body?.cancel();
  },
);

test(
  "a 20,000-chunk turn read in pieces from node after node with Last-Event-ID arrives exactly",
  { skip: unavailable },
  async () => {
    const report = await resumeScenario(target());
    assert.ok(report.resumes >= 4, `resumed ${report.resumes} times`);
    assert.equal(report.nodesRead, 3);
    await agentsStopped();
  },
);
