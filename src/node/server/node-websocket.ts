/**
 * `createNodeWebSocketUpgradeHandler`: WebSocket upgrades for an `AcpServer` through a `ws` `WebSocketServer`
 * (`{ noServer: true }`). Same call shape as the official SDK 2.4.0's, plus what it lacks: the upgrade is checked
 * (path, Host, Origin, bearer token in `Authorization` or the `acp.bearer.*` subprotocol, capacity) before it is
 * accepted, the `acp` subprotocol is selected when offered (a bearer subprotocol never is), the 101 carries
 * `Acp-Connection-Id` and the server's extra headers (cookies), pings detect half-open sockets, and backpressure uses
 * the socket's drain event.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (WebSocket Request Flow)
 */
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { HEADER_CONNECTION_ID } from "../../remote/http-protocol.js";
import type { AcpServer } from "../../remote/server/acp-server.js";
import type { ServerWebSocket } from "../../remote/server/server-websocket.js";
import { headersOf, isPlainTarget, socketInfoOf, urlOf } from "./node-request.js";
import type { SocketAdmission } from "./socket-admission.js";

type HeadersListener = (headers: string[], request: IncomingMessage) => void;

/**
 * What the handler uses of a `ws` WebSocket. Typed here rather than imported, so that these declarations compile
 * without `ws` or `@types/ws` installed (`ws` is an optional peer dependency).
 */
export interface UpgradedWebSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  readonly OPEN: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  pause(): void;
  resume(): void;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
}

/** What the handler needs of a `ws` `WebSocketServer`. */
export interface NodeWebSocketUpgradeServer {
  on(event: "headers", listener: HeadersListener): void;
  off(event: "headers", listener: HeadersListener): void;
  handleUpgrade(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    callback: (webSocket: UpgradedWebSocket) => void,
  ): void;
}

/** Options of the upgrade handler (acpkit's). */
export interface NodeWebSocketUpgradeOptions {
  /** Ping interval; a socket that did not answer the previous ping is terminated. Default: the server's `keepAliveMs`. */
  readonly pingIntervalMs?: number;
  /** The ledger of unauthenticated sockets (`listenAcp` passes its own): an accepted upgrade leaves it. */
  readonly admission?: SocketAdmission;
}

/** An `upgrade` listener for `node:http`, `node:https` or `node:http2` (with `allowHTTP1`) servers. */
export function createNodeWebSocketUpgradeHandler(
  server: AcpServer,
  webSocketServer: NodeWebSocketUpgradeServer,
  options: NodeWebSocketUpgradeOptions = {},
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const pingIntervalMs = options.pingIntervalMs ?? server.limits.keepAliveMs;
  return (request, socket, head) => {
    socket.on("error", () => {});
    if (!isPlainTarget(request)) {
      void refuseUpgrade(
        socket,
        new Response("Not Found: this server routes the path exactly as sent; request the endpoint's path itself", {
          status: 404,
        }),
      );
      return;
    }
    const headers = headersOf(request);
    const upgrade = new Request(urlOf(request, headers), { method: "GET", headers });
    // In a cluster, a share token issued on another node is read first (nothing to wait for otherwise).
    const learning = server.prepareWebSocketCredentials(upgrade);
    if (learning === undefined) accept(request, socket, head, upgrade);
    else void learning.then(() => (socket.destroyed ? undefined : accept(request, socket, head, upgrade)));
  };

  function accept(request: IncomingMessage, socket: Duplex, head: Buffer, upgrade: Request): void {
    const info = socketInfoOf(request);
    const check = server.checkWebSocketUpgrade(upgrade, info);
    if (!check.ok) {
      void refuseUpgrade(socket, check.response);
      return;
    }
    let prepared: ReturnType<AcpServer["prepareWebSocketUpgrade"]>;
    try {
      prepared = server.prepareWebSocketUpgrade({ socket: info, ...(check.agent ? { agent: check.agent } : {}) });
    } catch (error) {
      void refuseUpgrade(socket, new Response(`Service Unavailable: ${(error as Error).message}`, { status: 503 }));
      return;
    }
    const extra: string[] = [];
    check.headers.forEach((value, name) => {
      if (name.toLowerCase() !== "set-cookie") extra.push(`${name}: ${value}`);
    });
    for (const cookie of check.headers.getSetCookie()) extra.push(`Set-Cookie: ${cookie}`);
    const onHeaders: HeadersListener = (lines, upgraded) => {
      if (upgraded !== request) return;
      // ws selects the first offered subprotocol unless told otherwise: never let that be the bearer one.
      for (let i = lines.length - 1; i >= 0; i--) if (/^sec-websocket-protocol:/i.test(lines[i]!)) lines.splice(i, 1);
      if (check.protocol !== undefined) lines.push(`Sec-WebSocket-Protocol: ${check.protocol}`);
      lines.push(`${HEADER_CONNECTION_ID}: ${prepared.connectionId}`, ...extra);
    };
    const cleanup = () => {
      webSocketServer.off("headers", onHeaders);
      socket.off("close", onFailed);
    };
    const onFailed = () => {
      cleanup();
      prepared.reject();
    };
    webSocketServer.on("headers", onHeaders);
    socket.once("close", onFailed);
    try {
      webSocketServer.handleUpgrade(request, socket, head, (webSocket) => {
        cleanup();
        options.admission?.authenticated(info.remoteAddress, info.remotePort);
        prepared.accept(flowControlled(webSocket, pingIntervalMs));
      });
    } catch {
      onFailed();
      socket.destroy();
    }
  }
}

/** Answers a refused upgrade with a plain HTTP/1.1 response on the raw socket, then closes it. */
async function refuseUpgrade(socket: Duplex, response: Response): Promise<void> {
  const body = Buffer.from(await response.text());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`];
  response.headers.forEach((value, name) => {
    if (name.toLowerCase() !== "content-length" && name.toLowerCase() !== "connection") lines.push(`${name}: ${value}`);
  });
  lines.push(`Content-Length: ${body.length}`, "Connection: close", "", "");
  if (!socket.destroyed) socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}

/** Most bytes of frames held in one corked batch. */
const CORK_BATCH_BYTES = 64 * 1024;

/**
 * The `ws` socket with the flow controls the server uses (pause/resume reading, the send buffer's drain event) and
 * a ping every `pingIntervalMs`: a socket that did not answer the last ping is terminated.
 */
function flowControlled(webSocket: UpgradedWebSocket, pingIntervalMs: number): ServerWebSocket {
  const raw = (webSocket as unknown as { _socket?: Duplex })._socket;
  let alive = true;
  const pinger = setInterval(() => {
    if (!alive) {
      webSocket.terminate();
      return;
    }
    alive = false;
    try {
      webSocket.ping();
    } catch {
      // Closing.
    }
  }, pingIntervalMs);
  pinger.unref();
  webSocket.on("pong", () => (alive = true));
  webSocket.on("message", () => (alive = true));
  webSocket.once("close", () => clearInterval(pinger));
  // Frames sent in one turn of the event loop leave in one write: the socket is corked until the next tick, or until
  // the batch holds CORK_BATCH_BYTES (a sender that never yields still gets its frames out in bounded writes).
  let corked = false;
  const uncork = () => {
    corked = false;
    raw?.uncork();
  };
  return {
    get readyState() {
      return webSocket.readyState;
    },
    get bufferedAmount() {
      return webSocket.bufferedAmount;
    },
    send: (data) => {
      if (raw && !corked && webSocket.readyState === webSocket.OPEN) {
        corked = true;
        raw.cork();
        process.nextTick(uncork);
      }
      webSocket.send(data);
      if (corked && raw!.writableLength >= CORK_BATCH_BYTES) {
        raw!.uncork();
        raw!.cork();
      }
    },
    close: (code, reason) => webSocket.close(code, reason),
    on: (type, listener) => webSocket.on(type, listener),
    off: (type, listener) => webSocket.off(type, listener),
    pause: () => webSocket.pause(),
    resume: () => webSocket.resume(),
    whenDrained: raw
      ? () =>
          new Promise<void>((resolve) => {
            const done = () => {
              raw.off("drain", done);
              webSocket.off("close", done);
              resolve();
            };
            raw.once("drain", done);
            webSocket.once("close", done);
          })
      : undefined,
  };
}
