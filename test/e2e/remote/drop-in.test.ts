/**
 * The drop-in claim for the server entries: code written against `@agentclientprotocol/sdk/experimental/server` and
 * `/experimental/node` (an `AcpServer`, `node:http` with `createNodeHttpHandler`, a `ws` server with
 * `createNodeWebSocketUpgradeHandler`) runs unchanged with acpkit's entries in the import, here with the official
 * 2.x agent app behind it and the official clients in front. The official server runs the same code as the baseline.
 *
 * Also: cookies. A server that sets an affinity cookie (acpkit's `responseHeaders` option) sees the official clients
 * send it back on every later request, over both profiles.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { after, describe, it } from "node:test";
import { MemoryAcpCookieStore } from "@agentclientprotocol/sdk/experimental/http-client";
import * as official from "@agentclientprotocol/sdk";
import { WebSocketServer } from "ws";
import { makeTempDir } from "../interop/support/temp.js";
import { CLIENT_TRANSPORTS, type RemoteTarget } from "./support/client-transports.js";
import { remoteClient } from "./support/remote-client.js";

type OfficialServer = typeof import("@agentclientprotocol/sdk/experimental/server");
type OfficialNode = typeof import("@agentclientprotocol/sdk/experimental/node");
/** An `AcpServer` by its public members: the class has private ones, which TypeScript compares by declaration. */
type PublicAcpServer = {
  [K in keyof InstanceType<OfficialServer["AcpServer"]>]: InstanceType<OfficialServer["AcpServer"]>[K];
};
/** The two entries as the code below uses them, in the official types; both SDKs' modules must fit (no cast). */
interface ServerModule {
  AcpServer: new (options: ConstructorParameters<OfficialServer["AcpServer"]>[0]) => PublicAcpServer;
}
interface NodeModule {
  createNodeHttpHandler(
    server: PublicAcpServer,
    options?: Parameters<OfficialNode["createNodeHttpHandler"]>[1],
  ): ReturnType<OfficialNode["createNodeHttpHandler"]>;
  createNodeWebSocketUpgradeHandler(
    server: PublicAcpServer,
    webSocketServer: Parameters<OfficialNode["createNodeWebSocketUpgradeHandler"]>[1],
  ): ReturnType<OfficialNode["createNodeWebSocketUpgradeHandler"]>;
}

const ENTRIES: Record<"official" | "acpkit", () => Promise<[ServerModule, NodeModule]>> = {
  official: async () => [
    await import("@agentclientprotocol/sdk/experimental/server"),
    await import("@agentclientprotocol/sdk/experimental/node"),
  ],
  acpkit: async () => [
    await import("../../../src/entries/experimental/server.js"),
    await import("../../../src/entries/experimental/node.js"),
  ],
};

/** An official 2.x agent app: streams "N" chunks for a prompt "stream N", echoes anything else. */
function officialAgent() {
  let sessions = 0;
  return official
    .agent({ name: "official-app-behind-a-server" })
    .onRequest(official.methods.agent.initialize, () => ({
      protocolVersion: official.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
    }))
    .onRequest(official.methods.agent.session.new, () => ({ sessionId: `s-${++sessions}` }))
    .onRequest(official.methods.agent.session.prompt, async ({ params, client }) => {
      const text = params.prompt.map((block) => (block.type === "text" ? block.text : "")).join("");
      const count = text.startsWith("stream ") ? Number(text.slice(7)) : 1;
      for (let i = 0; i < count; i++) {
        await client.notify(official.methods.client.session.update, {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${i} ü🙂` } },
        });
      }
      return { stopReason: "end_turn" };
    });
}

/** The official wiring, verbatim apart from the module the names come from. */
async function serveLikeTheOfficialDocs(
  [serverModule, nodeModule]: [ServerModule, NodeModule],
  extraOptions: Record<string, unknown> = {},
  record?: (request: IncomingMessage) => void,
): Promise<{ http: Server; acp: PublicAcpServer; target: RemoteTarget }> {
  const acp = new serverModule.AcpServer({ createAgent: () => officialAgent(), ...extraOptions } as never);
  const handler = nodeModule.createNodeHttpHandler(acp);
  const webSocketServer = new WebSocketServer({ noServer: true });
  const upgrade = nodeModule.createNodeWebSocketUpgradeHandler(acp, webSocketServer);
  const http = createServer((request, response) => {
    record?.(request);
    handler(request, response);
  });
  http.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    record?.(request);
    upgrade(request, socket, head);
  });
  http.listen(0, "127.0.0.1");
  await once(http, "listening");
  const { port } = http.address() as AddressInfo;
  return { http, acp, target: { url: `http://127.0.0.1:${port}/acp`, webSocketUrl: `ws://127.0.0.1:${port}/acp` } };
}

async function shutDown(http: Server, acp: { close(): Promise<void> }): Promise<void> {
  await acp.close();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
}

const work = makeTempDir("acp-remote-dropin-");

for (const impl of ["official", "acpkit"] as const) {
  describe(`official-shaped server code on the ${impl} entries`, () => {
    for (const transport of CLIENT_TRANSPORTS) {
      it(`serves the official 2.x agent app to ${transport.name}`, { timeout: 30_000 }, async () => {
        const { http, acp, target } = await serveLikeTheOfficialDocs(await ENTRIES[impl]());
        try {
          const client = await remoteClient(transport.open(target), work, transport.impl);
          await client.initialize();
          const sessionId = await client.newSession(work);
          const turn = await client.prompt(sessionId, "stream 300");
          assert.equal(turn.stopReason, "end_turn");
          assert.deepEqual(
            client.host.texts(0, sessionId),
            Array.from({ length: 300 }, (_, i) => `chunk ${i} ü🙂`),
          );
          client.close();
          await client.closed;
        } finally {
          await shutDown(http, acp);
        }
      });
    }
  });
}

describe("cookies: an affinity cookie set by the server is echoed by the official clients", () => {
  const servers: Array<() => Promise<void>> = [];
  after(() => Promise.all(servers.map((stop) => stop())));

  for (const transport of CLIENT_TRANSPORTS) {
    it(`${transport.name} sends the cookie back on every later request`, { timeout: 30_000 }, async () => {
      const seen: Array<{ method: string; cookie: string | undefined; upgrade: boolean }> = [];
      const { http, acp, target } = await serveLikeTheOfficialDocs(
        await ENTRIES.acpkit(),
        { responseHeaders: () => ({ "Set-Cookie": "acp-affinity=backend-7; Path=/; HttpOnly" }) },
        (request) =>
          seen.push({
            method: request.method ?? "",
            cookie: request.headers.cookie,
            upgrade: request.headers.upgrade === "websocket",
          }),
      );
      servers.push(() => shutDown(http, acp));
      const cookieStore = new MemoryAcpCookieStore();
      const client = await remoteClient(transport.open({ ...target, cookieStore }), work, transport.impl);
      await client.initialize();
      const sessionId = await client.newSession(work);
      await client.prompt(sessionId, "stream 3");
      if (transport.profile === "http") {
        assert.equal(seen[0]!.cookie, undefined, "the first request (initialize) has no cookie yet");
        const later = seen.slice(1);
        assert.ok(
          later.length >= 4,
          `initialize, the connection stream, session/new, the session stream, the prompt (saw ${later.length})`,
        );
        for (const request of later)
          assert.equal(request.cookie, "acp-affinity=backend-7", `${request.method} carried the cookie`);
      } else {
        // The cookie arrives on the 101; a reconnect with the same cookie store (the RFD's affinity case) sends it.
        const reconnect = await remoteClient(transport.open({ ...target, cookieStore }), work, transport.impl);
        await reconnect.initialize();
        const upgrades = seen.filter((request) => request.upgrade);
        assert.equal(upgrades.length, 2);
        assert.equal(upgrades[0]!.cookie, undefined);
        assert.equal(upgrades[1]!.cookie, "acp-affinity=backend-7");
        reconnect.close();
        await reconnect.closed;
      }
      client.close();
      await client.closed;
    });
  }
});
