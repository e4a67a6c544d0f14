/**
 * Shared sessions on one node, over real sockets (`listenAcp` with `sharedSessions`): the scenarios of
 * `support/scenarios.ts` (a controller on WebSocket, the official SDK's client, and observers on Streamable HTTP on one
 * live session; late joiners with each `historyPolicy`; the replay/live seam under a streaming turn; two controllers
 * answering the same permission request 200 times; an observer's prompt and cancel refused; controllers that leave
 * mid-turn), every participant on the one node. `three-nodes.test.ts` runs the same across three cluster nodes.
 */
import { after, before } from "node:test";
import { listenAcp, type ListeningAcpServer } from "../../../src/entries/node.js";
import { SharedAgentStats, sharedTestAgent } from "./support/shared-agent.js";
import { sharedSessionScenarios, type Topology } from "./support/scenarios.js";

const TOKEN = "shared-test-token";

let server: ListeningAcpServer;
let topology: Topology;

before(async () => {
  const agent = new SharedAgentStats();
  server = await listenAcp({ agent: sharedTestAgent(agent), token: TOKEN, sharedSessions: true });
  topology = {
    nodes: [{ url: server.url, webSocketUrl: server.webSocketUrl, token: TOKEN }],
    agent,
  };
});
after(async () => {
  await server.close();
});

sharedSessionScenarios("shared sessions on one node", () => topology);
