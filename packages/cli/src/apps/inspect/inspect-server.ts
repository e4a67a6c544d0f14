/**
 * The inspector's server: one HTTP server (loopback unless told) that serves the page and two WebSocket endpoints,
 * all behind the same checks, applied before anything is answered (the page's HTML included):
 * - Host: a loopback name or the socket's own address (DNS rebinding defence), unless the host was chosen;
 * - Origin: absent, or this server's own origin (other web pages in the browser get nothing);
 * - the token: `?token=` on the page's URL, the `acp.bearer.<base64url>` subprotocol on the sockets.
 * A refusal is a bare status line and a one-line reason, never the page.
 *
 * `/feed` carries the lanes to the page (lane-hub.ts) and the page's calls to the server (host methods, checks);
 * `/acp?client=KEY[&role=replay]` is a lane the page drives: one JSON-RPC message per text frame (the WebSocket
 * transport's framing), bridged by `openLane` to an agent process or a remote agent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { AccessPolicy, WEBSOCKET_SUBPROTOCOL } from "@acpkit/sdk/remote";
import { FEED_SUBPROTOCOL, type Hello, type LaneRole, type PageMessage } from "./feed-protocol.js";
import type { LaneHub } from "./lane-hub.js";
import { renderPage, renderWorker, type PageAssets } from "./page-html.js";
import type { PageSocket } from "./agent-bridge.js";

export interface InspectServerOptions {
  host: string;
  port: number;
  token: string;
  /** Host names the Host header may name besides the loopback ones (`--allow-host`). */
  allowedHosts?: readonly string[];
  assets: PageAssets;
  hub: LaneHub;
  hello: () => Hello;
  /** A page opened a lane to drive (undefined when nothing can be driven: the socket is refused). */
  openLane?: (socket: PageSocket, role: LaneRole, clientKey: string) => void;
  /** A message from a page on the feed; `reply` answers that page only. */
  onPageMessage: (message: PageMessage, reply: (text: string) => void) => void;
}

export interface InspectServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the server; rejects when the address cannot be bound. */
export async function startInspectServer(options: InspectServerOptions): Promise<InspectServer> {
  const sockets = new Set<Socket>();
  let ownHost = "";
  const access = () =>
    new AccessPolicy({
      token: options.token,
      allowedHosts: options.allowedHosts ? [...options.allowedHosts, ...loopbackNames(ownHost)] : "auto",
    });
  const decide = (request: IncomingMessage, token: string | undefined, subprotocols: readonly string[]) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    headers.delete("authorization");
    if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
    const hostHeader = request.headers.host ?? ownHost;
    const web = new Request(`http://${safeHost(hostHeader)}${request.url ?? "/"}`, { headers });
    const socket = request.socket;
    return access().check(
      web,
      { localAddress: socket.localAddress ?? "", localPort: socket.localPort ?? 0 },
      subprotocols,
    );
  };

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://inspector");
    const decision = decide(request, url.searchParams.get("token") ?? undefined, []);
    if (!decision.ok) return refuse(response, decision.status, explain(decision.status), decision.headers);
    if (request.method !== "GET" && request.method !== "HEAD")
      return refuse(response, 405, "Method not allowed: the inspector's page is read with GET.", { allow: "GET" });
    if (url.pathname === "/worker.js") {
      const worker = renderWorker(options.assets, request.headers.host ?? ownHost);
      response.writeHead(200, worker.headers);
      response.end(request.method === "HEAD" ? undefined : worker.body);
      return;
    }
    if (url.pathname !== "/") return refuse(response, 404, "Not found: the inspector's page is at /.");
    const page = renderPage(options.assets, request.headers.host ?? ownHost);
    response.writeHead(200, page.headers);
    response.end(request.method === "HEAD" ? undefined : page.body);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024 * 1024,
    handleProtocols: (protocols) =>
      protocols.has(FEED_SUBPROTOCOL)
        ? FEED_SUBPROTOCOL
        : protocols.has(WEBSOCKET_SUBPROTOCOL)
          ? WEBSOCKET_SUBPROTOCOL
          : false,
  });
  server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(request.url ?? "/", "http://inspector");
    const offered = (request.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
    const decision = decide(request, undefined, offered);
    if (!decision.ok) return refuseUpgrade(socket, decision.status, explain(decision.status));
    if (url.pathname === "/feed" && offered.includes(FEED_SUBPROTOCOL)) {
      webSockets.handleUpgrade(request, socket, head, (ws) => feed(ws));
      return;
    }
    if (url.pathname === "/acp" && offered.includes(WEBSOCKET_SUBPROTOCOL)) {
      if (!options.openLane) return refuseUpgrade(socket, 409, "Conflict: this inspector has no agent to drive.");
      const role: LaneRole = url.searchParams.get("role") === "replay" ? "replay" : "client";
      const key = url.searchParams.get("client") ?? "";
      webSockets.handleUpgrade(request, socket, head, (ws) =>
        options.openLane!(ws as unknown as PageSocket, role, key),
      );
      return;
    }
    refuseUpgrade(socket, 404, "Not found: the inspector's sockets are /feed and /acp.");
  });

  const feed = (ws: WebSocket) => {
    const send = (data: string | Uint8Array) => {
      if (ws.readyState === ws.OPEN) ws.send(data);
    };
    send(JSON.stringify(options.hello()));
    const detach = options.hub.attach({ sendText: send, sendBinary: send });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      let message: PageMessage;
      try {
        message = JSON.parse(data.toString()) as PageMessage;
      } catch {
        return;
      }
      options.onPageMessage(message, send);
    });
    ws.on("close", detach);
    ws.on("error", () => {});
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  ownHost = `${formatHost(options.host)}:${address.port}`;
  return {
    url: `http://${ownHost}/?token=${encodeURIComponent(options.token)}`,
    port: address.port,
    close: async () => {
      // Pages get what was sent to them (a tap's last frames), then the closing handshake; a page that does not
      // answer it within a second is cut off.
      for (const client of webSockets.clients) client.close(1001, "the inspector stopped");
      await new Promise((resolve) => setTimeout(resolve, webSockets.clients.size > 0 ? 200 : 0));
      const deadline = Date.now() + 1000;
      while (webSockets.clients.size > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      for (const client of webSockets.clients) client.terminate();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

/** What a refused request is told: what was wrong and what to do, nothing else (never the page). */
function explain(status: number): string {
  if (status === 401)
    return "Unauthorized: open the inspector with the URL acp inspect printed (its ?token= is needed, and must be the one printed).";
  return (
    "Forbidden: the inspector answers only its own page, on the loopback names it printed " +
    "(not another Host, not another web page's Origin); use the printed URL, or --allow-host NAME."
  );
}

function refuse(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, {
    ...headers,
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  response.end(`${message}\n`);
}

function refuseUpgrade(socket: Socket, status: number, message: string): void {
  const reason = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict" }[status] ?? "Refused";
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(message) + 1}\r\n\r\n${message}\n`,
  );
}

function formatHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

function safeHost(host: string): string {
  return /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? host : "invalid.invalid";
}

function loopbackNames(ownHost: string): string[] {
  return ["localhost", "127.0.0.1", "[::1]", "*.localhost", ownHost.replace(/:\d+$/, "")];
}
