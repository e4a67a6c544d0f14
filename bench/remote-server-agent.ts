/**
 * The server side of `bench/remote-server.ts`, in its own process: an ACP server on 127.0.0.1 hosting an in-process
 * agent whose prompt "stream N" sends N `agent_message_chunk` updates (each awaited), then `end_turn`.
 *
 *   node dist/bench/remote-server-agent.js acpkit|official
 *
 * acpkit: `listenAcp` (no token, loopback) with acpkit's `agent()` app. official: the SDK 2.4.0's `AcpServer`,
 * `createNodeHttpHandler`, `createNodeWebSocketUpgradeHandler` and `agent()` app, wired as its docs show.
 * Prints `url: <url>` on stdout.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { once } from "node:events";
import { WebSocketServer } from "ws";

const impl = process.argv[2];

type App = { connect(stream: unknown): unknown };
type Sdk = {
  agent(options: { name: string }): any;
  PROTOCOL_VERSION: number;
};

function streamingAgent(sdk: Sdk): App {
  let sessions = 0;
  return sdk
    .agent({ name: "bench-remote-agent" })
    .onRequest("initialize", () => ({ protocolVersion: sdk.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest("session/new", () => ({ sessionId: `bench-${++sessions}` }))
    .onRequest("session/prompt", async ({ params, client }: any) => {
      const count = Number(String(params.prompt[0].text).split(" ")[1]);
      for (let i = 0; i < count; i++) {
        await client.notify("session/update", { sessionId: params.sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk number ${i} of the turn` } } });
      }
      return { stopReason: "end_turn" };
    });
}

if (impl === "acpkit") {
  const sdk = (await import("../src/index.js")) as unknown as Sdk;
  const { listenAcp } = await import("../src/node/index.js");
  const listening = await listenAcp({ agent: streamingAgent(sdk) as never, insecureNoToken: true });
  process.stdout.write(`url: ${listening.url}\n`);
} else if (impl === "official") {
  const sdk = (await import("@agentclientprotocol/sdk")) as unknown as Sdk;
  const { AcpServer } = await import("@agentclientprotocol/sdk/experimental/server");
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await import("@agentclientprotocol/sdk/experimental/node");
  const acp = new AcpServer({ createAgent: () => streamingAgent(sdk) as never });
  const server = createServer(createNodeHttpHandler(acp));
  server.on("upgrade", createNodeWebSocketUpgradeHandler(acp, new WebSocketServer({ noServer: true })));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  process.stdout.write(`url: http://127.0.0.1:${(server.address() as AddressInfo).port}/acp\n`);
}
