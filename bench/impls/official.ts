/**
 * Adapter for the official SDK, `@agentclientprotocol/sdk` 2.4.0, through its 2.x app API; remote rows through its
 * experimental transports (`AcpServer` with `createNodeHttpHandler` / `createNodeWebSocketUpgradeHandler` and a `ws`
 * `WebSocketServer`, wired as its docs show; `createHttpStream` / `createWebSocketStream` with `ws` in Node).
 */
import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { sdkImpl, transformStreamPair, type RemoteKit, type SdkStream } from "./sdk.js";

async function officialRemote(): Promise<RemoteKit> {
  const { AcpServer } = await import("@agentclientprotocol/sdk/experimental/server");
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } =
    await import("@agentclientprotocol/sdk/experimental/node");
  const { createHttpStream } = await import("@agentclientprotocol/sdk/experimental/http-client");
  const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
  return {
    async listen(app) {
      const acp = new AcpServer({ createAgent: () => app });
      const server = createServer(createNodeHttpHandler(acp));
      server.on("upgrade", createNodeWebSocketUpgradeHandler(acp, new WebSocketServer({ noServer: true })));
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/acp`;
    },
    stream: (url, profile) =>
      (profile === "http"
        ? createHttpStream(url)
        : createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket: WebSocket as never })) as SdkStream,
  };
}

export const officialImpl = sdkImpl({
  name: "official",
  load: () => import("@agentclientprotocol/sdk"),
  // The same pair of TransformStreams the SDK builds for `client().connect(agentApp)`.
  memoryPair: async () => transformStreamPair(),
  memoryNote:
    "agent().connect / client().connect over a pair of TransformStreams (what client().connect(agentApp) does)",
  remote: officialRemote,
});
