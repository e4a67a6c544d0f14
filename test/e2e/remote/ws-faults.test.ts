/**
 * WebSocket client behaviour against a scripted `ws` server on a real socket: binary frames ignored, bad frames
 * answered and survived, oversized frames failing only their request, the server closing with a code, a refused
 * upgrade (the auto profile falls back to Streamable HTTP), and credentials and cookies on the upgrade.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { WebSocket } from "ws";
import {
  ClientSideConnection,
  ConnectionClosedError,
  MessageTooLargeError,
  TransportFailedError,
  type Client,
} from "../../../src/entries/index.js";
import {
  createWebSocketStream,
  MemoryAcpCookieStore,
  openRemoteStream,
  type WebSocketConstructor,
} from "../../../src/entries/remote.js";
import { tokenFromSubprotocols } from "../../../src/remote/http-protocol.js";
import { within } from "../interop/support/spawn.js";
import { answerInitialize, scriptedServer, type ScriptedServer } from "./support/scripted-server.js";

const STEP = { timeout: 30_000 };
const WS = WebSocket as unknown as WebSocketConstructor;
const client: Client = {
  sessionUpdate: async () => {},
  requestPermission: async () => ({ outcome: { outcome: "cancelled" } }),
};
const INIT = { protocolVersion: 1, clientCapabilities: {} };

type Frame = { id?: unknown; method?: string; error?: { code: number } };

describe("WebSocket client (scripted ws server)", () => {
  let server: ScriptedServer | undefined;
  let connection: ClientSideConnection | undefined;
  afterEach(async () => {
    connection?.close();
    await server?.close();
  });

  /** A WebSocket endpoint answering initialize and `_x/*` methods per `reply`; records every text frame received. */
  async function wsEndpoint(
    reply: (frame: Frame, send: (data: string | Buffer) => void, close: (code: number, reason: string) => void) => void,
    upgradeHeaders: string[] = [],
  ) {
    const received: Frame[] = [];
    const upgrades: Array<{ headers: Record<string, unknown> }> = [];
    server = await scriptedServer(
      (_request, res) => void res.writeHead(404).end(),
      (req, _socket, _head, accept) => {
        upgrades.push({ headers: req.headers });
        accept((socket) => {
          socket.on("message", (data, isBinary) => {
            if (isBinary) return;
            const frame = JSON.parse(data.toString()) as Frame;
            received.push(frame);
            if (frame.method === "initialize")
              return socket.send(
                JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { protocolVersion: 1, agentCapabilities: {} } }),
              );
            reply(
              frame,
              (out) => socket.send(out),
              (code, reason) => socket.close(code, reason),
            );
          });
        });
      },
      upgradeHeaders,
    );
    return { received, upgrades, url: server.url.replace("http", "ws") };
  }

  it(
    "binary frames are ignored, a bad frame is answered -32700, an oversized one fails only its request",
    STEP,
    async () => {
      const endpoint = await wsEndpoint((frame, send) => {
        if (frame.method === "_x/big") {
          send(Buffer.from([1, 2, 3]));
          send("{not json");
          send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { blob: "z".repeat(5000) } }));
        }
        if (frame.method === "_x/ping") send(JSON.stringify({ jsonrpc: "2.0", id: frame.id, result: { pong: true } }));
      });
      connection = new ClientSideConnection(
        () => client,
        createWebSocketStream(endpoint.url, { WebSocket: WS, maxMessageBytes: 2048 }),
      );
      await connection.initialize(INIT);
      await assert.rejects(connection.extMethod("_x/big", {}), MessageTooLargeError);
      assert.deepEqual(await connection.extMethod("_x/ping", {}), { pong: true });
      assert.ok(
        endpoint.received.some((frame) => frame.error?.code === -32700),
        "the bad frame was answered with -32700",
      );
    },
  );

  it("the server closing the socket fails what waits, naming the close code and reason", STEP, async () => {
    const endpoint = await wsEndpoint((frame, _send, close) => {
      if (frame.method === "_x/crash") close(1011, "agent crashed");
    });
    connection = new ClientSideConnection(() => client, createWebSocketStream(endpoint.url, { WebSocket: WS }));
    await connection.initialize(INIT);
    await assert.rejects(within(connection.extMethod("_x/crash", {}), 10_000, "the failed request"), (error: Error) => {
      assert.ok(error instanceof ConnectionClosedError);
      assert.match(error.message, /1011 server error: agent crashed/);
      return true;
    });
  });

  it(
    "a refused upgrade: ws:// fails with the status; auto falls back to Streamable HTTP on the same URL",
    STEP,
    async () => {
      server = await scriptedServer(
        (request, res) => {
          if (request.json?.method === "initialize") return answerInitialize(request, res);
          if (request.method === "GET")
            return void res.writeHead(200, { "Content-Type": "text/event-stream" }).flushHeaders();
          res.writeHead(202).end();
        },
        (_req, socket) => void socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
      );
      await assert.rejects(
        openRemoteStream(server.url.replace("http", "ws"), { WebSocket: WS }),
        (error: Error) =>
          error instanceof TransportFailedError &&
          error.status === 400 &&
          /refused the WebSocket upgrade with HTTP 400/.test(error.message),
      );
      const stream = await openRemoteStream(server.url, { WebSocket: WS });
      assert.equal(stream.profile, "http");
      assert.equal(stream.fallbackReason?.status, 400);
      connection = new ClientSideConnection(() => client, stream);
      assert.equal((await connection.initialize(INIT)).protocolVersion, 1);
    },
  );

  it(
    "an upgrade refused with 401 or 403 ends the auto profile at once: HTTP would refuse those credentials too",
    STEP,
    async () => {
      for (const [status, text] of [
        [401, "Unauthorized"],
        [403, "Forbidden"],
      ] as const) {
        let posts = 0;
        server = await scriptedServer(
          (_request, res) => void (posts++, res.writeHead(status).end()),
          (_req, socket) =>
            void socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
        );
        await assert.rejects(
          openRemoteStream(server.url, { WebSocket: WS }),
          (error: Error) =>
            error instanceof TransportFailedError &&
            error.status === status &&
            new RegExp(`refused the WebSocket upgrade with HTTP ${status}\\. Check the token`).test(error.message),
        );
        assert.equal(posts, 0, "no fallback to Streamable HTTP");
        await server.close();
        server = undefined;
      }
    },
  );

  it(
    "the token goes in Authorization with a header-capable constructor, in the bearer subprotocol otherwise; " +
      "cookies from the 101 come back",
    STEP,
    async () => {
      const endpoint = await wsEndpoint(() => {}, ["Set-Cookie: affinity=a1; Path=/; HttpOnly"]);
      const cookieStore = new MemoryAcpCookieStore();
      const first = await openRemoteStream(endpoint.url, { WebSocket: WS, token: "s3cret", cookieStore });
      connection = new ClientSideConnection(() => client, first);
      await connection.initialize(INIT);
      assert.equal(endpoint.upgrades[0]!.headers.authorization, "Bearer s3cret");
      assert.equal(endpoint.upgrades[0]!.headers.cookie, undefined);
      assert.equal(cookieStore.get("affinity"), "a1", "the 101's cookie was stored");
      connection.close();

      const second = await openRemoteStream(endpoint.url, {
        WebSocket: WS,
        token: "s3cret",
        tokenVia: "subprotocol",
        cookieStore,
      });
      connection = new ClientSideConnection(() => client, second);
      await connection.initialize(INIT);
      const offered = String(endpoint.upgrades[1]!.headers["sec-websocket-protocol"])
        .split(",")
        .map((p) => p.trim());
      assert.equal(offered[0], "acp");
      assert.equal(tokenFromSubprotocols(offered), "s3cret");
      assert.equal(endpoint.upgrades[1]!.headers.authorization, undefined);
      assert.equal(endpoint.upgrades[1]!.headers.cookie, "affinity=a1", "and went back on the next upgrade");
    },
  );

  it("a server that is not there: the WebSocket profile fails to open with a clear error", STEP, async () => {
    const endpoint = await wsEndpoint(() => {});
    const url = endpoint.url;
    await server!.close();
    server = undefined;
    await assert.rejects(
      openRemoteStream(url, { WebSocket: WS }),
      (error: Error) =>
        error instanceof TransportFailedError &&
        /Could not open a WebSocket to the ACP server at ws:\/\/127\.0\.0\.1:\d+\/acp \(.*ECONNREFUSED/.test(
          error.message,
        ),
    );
  });
});
