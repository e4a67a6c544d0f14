/**
 * A backend written for the official SDK's `AcpHttpBackend` SPI serves acpkit's server through `httpBackend`: the
 * same cluster scenarios, on three `listenAcp` servers each given its own backend object over one shared store.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listenAcp } from "../../../src/node/server/listen.js";
import { stdioAgentConnector } from "../../../src/node/server/stdio-agent-connector.js";
import { fixturePath } from "../interop/support/spawn.js";
import { OfficialShapedBackend, SpiStore } from "./support/official-shaped-backend.js";
import { conformanceScenario, resumeScenario } from "./support/scenarios.js";

type Listening = Awaited<ReturnType<typeof listenAcp>>;

const agent = stdioAgentConnector({ argv: [process.execPath, fixturePath("cluster-agent"), "--stdio"] });
const store = new SpiStore();
const backends = [0, 1, 2].map(() => new OfficialShapedBackend(store));
let servers: Listening[] = [];

before(async () => {
  servers = await Promise.all(backends.map((httpBackend) => listenAcp({ agent, httpBackend, insecureNoToken: true })));
});

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

test("conformance through httpBackend: every request of the connection on another node, then 404 everywhere", async () => {
  await conformanceScenario({ nodes: servers.map((server) => server.url) });
  assert.ok(
    backends.every((backend) => backend.touches > 0),
    "every node touched the connection after accepted work",
  );
  assert.equal(store.connections.size, 0);
});

test("the lease cursors of an official-shaped backend resume with Last-Event-ID across nodes", async () => {
  const report = await resumeScenario(
    { nodes: servers.map((server) => server.url) },
    { chunks: 2000, pieces: [300, 1, 450] },
  );
  assert.ok(report.resumes >= 4);
});
