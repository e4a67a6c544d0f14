/**
 * Shared sessions across three cluster nodes, over real sockets: the scenarios of `support/scenarios.ts` (the same
 * assertions as `shared-sessions.test.ts` on one node) with each participant of a scenario connected through a
 * different node than the session's opener where the scenario has room (node 0 runs the session's agent; the others
 * relay through the database). Three `listenAcp` nodes, each with its own `PostgresServerBackend` (its own pool and
 * LISTEN connection), share nothing but one real PostgreSQL started for this file; the same agent app on each (its
 * session ids are unique across them). Late joiners with each `historyPolicy` on other nodes, three controllers on
 * three nodes asked 200 permission requests with two answering at once (the agent gets exactly one answer each), a
 * controller leaving mid-turn (a WebSocket closed, an HTTP connection DELETEd) with the others on other nodes, the
 * official SDK's client (WebSocket and Streamable HTTP) taking part.
 */
import { after, before } from "node:test";
import { silentLogger } from "../../../src/jsonrpc/logger.js";
import { PostgresServerBackend } from "../../../src/node/cluster/index.js";
import { listenAcp } from "../../../src/node/server/listen.js";
import {
  postgresUnavailable,
  startTestPostgres,
  type TestPostgres,
} from "../../../src/node/testing/postgres-server.js";
import { SharedAgentStats, sharedTestAgent } from "./support/shared-agent.js";
import { sharedSessionScenarios, type Topology } from "./support/scenarios.js";

type Listening = Awaited<ReturnType<typeof listenAcp>>;

const unavailable = postgresUnavailable();
const TOKEN = "three-nodes-token";
let database: TestPostgres | undefined;
const backends: PostgresServerBackend[] = [];
const servers: Listening[] = [];
let topology: Topology;

before(async () => {
  if (unavailable !== undefined) return;
  database = await startTestPostgres();
  const stats = new SharedAgentStats();
  const agent = sharedTestAgent(stats);
  for (const name of ["a", "b", "c"]) {
    const backend = await PostgresServerBackend.open({
      database: { connectionString: database.connectionString, logger: silentLogger },
      nodeName: name,
    });
    backends.push(backend);
    servers.push(await listenAcp({ agent, backend, token: TOKEN, sharedSessions: true, logger: silentLogger }));
  }
  topology = {
    nodes: servers.map((server) => ({ url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN })),
    agent: stats,
  };
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(backends.map((backend) => backend.close()));
  await database?.close();
});

sharedSessionScenarios("shared sessions across three cluster nodes", () => topology, unavailable);
