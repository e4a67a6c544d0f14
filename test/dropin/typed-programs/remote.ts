/**
 * A typed program on the remote entries of `@agentclientprotocol/sdk` 2.4.0: an `AcpServer` behind `node:http` and
 * a `ws` server, and a client app over `createHttpStream` and `createWebSocketStream`. `typed-programs.test.ts`
 * compiles it as it is and with the imports changed to `acpkit/...`; both must type-check. Nothing runs at import.
 */
import { createServer, type Server } from "node:http";
import * as acp from "@agentclientprotocol/sdk";
import {
  createHttpStream,
  MemoryAcpCookieStore,
  type HttpStreamOptions,
} from "@agentclientprotocol/sdk/experimental/http-client";
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
  type NodeHttpHandlerOptions,
} from "@agentclientprotocol/sdk/experimental/node";
import { AcpServer, type AcpServerOptions } from "@agentclientprotocol/sdk/experimental/server";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { WebSocket, WebSocketServer } from "ws";

export function listen(port: number): { http: Server; server: AcpServer } {
  const options: AcpServerOptions = {
    createAgent: () =>
      acp
        .agent({ name: "remote" })
        .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: acp.PROTOCOL_VERSION })),
  };
  const server = new AcpServer(options);
  const handlerOptions: NodeHttpHandlerOptions = { maxRequestBodyBytes: 1 << 20 };
  const handler = createNodeHttpHandler(server, handlerOptions);
  const upgrade = createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true }));
  const http = createServer((request, response) => void handler(request, response));
  http.on("upgrade", (request, socket, head) => void upgrade(request, socket, head));
  http.listen(port, "127.0.0.1");
  return { http, server };
}

export async function call(url: string, webSocket: boolean): Promise<number> {
  const options: HttpStreamOptions = {
    cookieStore: new MemoryAcpCookieStore(),
    headers: { authorization: "Bearer x" },
  };
  const stream: acp.Stream = webSocket
    ? createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket: WebSocket as never })
    : createHttpStream(url, options);
  return acp
    .client()
    .connectWith(
      stream,
      async (agent) => (await agent.request(acp.methods.agent.initialize, { protocolVersion: 1 })).protocolVersion,
    );
}
