/**
 * `listenAcp`: an agent on the network in one call, secure by default. Streamable HTTP and WebSocket on one endpoint
 * (`/acp`), a health endpoint (`/healthz`), loopback unless told otherwise, a bearer token (generated when none is
 * given), Host and Origin checked. A non-loopback address without a token is refused unless `allowInsecure` says so
 * (and a warning is emitted). TLS gives HTTP/2 with HTTP/1.1 fallback on the same port (ALPN); cleartext HTTP/2 is
 * opt-in (`h2c`).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo, Server as NetServer, Socket } from "node:net";
import { AcpServer, type AcpServerSettings, type AgentSource } from "../../remote/server/acp-server.js";
import { DEFAULT_ACP_PATH, WEBSOCKET_SUBPROTOCOL } from "../../remote/http-protocol.js";
import { createCleartextServers } from "./cleartext-h2.js";
import { defaultAllowedHosts, formatHost, isLoopbackHost } from "./local-hosts.js";
import { createNodeHttpHandler } from "./node-http-handler.js";
import { createNodeWebSocketUpgradeHandler } from "./node-websocket.js";
import { SocketAdmission, type SocketAdmissionOptions } from "./socket-admission.js";
import { importOptional, WS_DEPENDENCY } from "../optional-dependency.js";

/** TLS material: PEM strings or buffers (read the files yourself, or let `acp serve --cert/--key` do it). */
export interface TlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly ca?: string | Buffer;
}

/** Options of `listenAcp`. */
export type ListenAcpOptions = AgentSource &
  AcpServerSettings &
  SocketAdmissionOptions & {
    /** Address to bind. Default `127.0.0.1`. */
    readonly host?: string;
    /** Port; 0 picks a free one. Default 0. */
    readonly port?: number;
    /** Serve without a token. Refused on a non-loopback address unless `allowInsecure` is also given. */
    readonly insecureNoToken?: boolean;
    /** Allow a non-loopback address without a token (a warning is emitted). */
    readonly allowInsecure?: boolean;
    /** Serve HTTPS (and WSS) with this certificate. */
    readonly tls?: TlsOptions;
    /** With `tls`: HTTP/2 with HTTP/1.1 fallback (default true); false serves HTTP/1.1 only. */
    readonly http2?: boolean;
    /** Without `tls`: also accept cleartext HTTP/2 (prior knowledge) on the same port. Default false. */
    readonly h2c?: boolean;
    /** How long `close()` gives running prompt turns to end after cancelling them. Default 2000 ms. */
    readonly closeGraceMs?: number;
  };

/** A listening server. */
export interface ListeningAcpServer {
  readonly server: AcpServer;
  /** `http(s)://host:port/acp` */
  readonly url: string;
  /** `ws(s)://host:port/acp` */
  readonly webSocketUrl: string;
  readonly host: string;
  readonly port: number;
  /** The token clients must present (the first, when several are valid), or undefined without one. */
  readonly token: string | undefined;
  /** Whether `token` was generated here (show it to the user: nobody else knows it). */
  readonly tokenGenerated: boolean;
  /**
   * Stops accepting, cancels running turns (giving them `graceMs`, default `closeGraceMs`), stops every agent,
   * closes every socket. Resolves when nothing is left.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * Keeps idle keep-alive sockets open longer than clients do (fetch keeps them about 4 s): otherwise the server may
 * close one just as a client sends a request on it, which the client sees as a reset.
 */
function keepIdleSocketsLonger(server: unknown): void {
  const http1 = server as Partial<Pick<HttpServer, "keepAliveTimeout" | "headersTimeout">>;
  if (typeof http1.keepAliveTimeout !== "number") return;
  http1.keepAliveTimeout = 65_000;
  http1.headersTimeout = 66_000;
}

/** A URL-safe random token: 32 bytes from the system's CSPRNG, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Starts the server; rejects when the address is taken or the options are unsafe, and with
 * `OptionalDependencyMissingError` when `ws` (an optional peer dependency, for the WebSocket side) is not installed.
 */
export async function listenAcp(options: ListenAcpOptions): Promise<ListeningAcpServer> {
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopbackHost(host);
  let token = options.token;
  let tokenGenerated = false;
  if (token === undefined && !options.insecureNoToken) {
    token = generateToken();
    tokenGenerated = true;
  }
  if (token === undefined && !loopback) {
    if (!options.allowInsecure) {
      throw new Error(
        `refusing to serve on ${host} without a token: anyone who can reach this address could run the agent. ` +
          "Give a token, bind to 127.0.0.1, or pass allowInsecure: true as well if the network is yours alone.",
      );
    }
    process.emitWarning(
      `ACP server on ${host} without a token: anyone who can reach it can run the agent and everything it can do.`,
      { code: "ACP_INSECURE" },
    );
  }
  // `ws` is an optional peer dependency: without it, listening fails here with what to install.
  const { WebSocketServer } = await importOptional<typeof import("ws")>(WS_DEPENDENCY);
  const path = options.path ?? DEFAULT_ACP_PATH;
  const server = new AcpServer({
    ...options,
    path,
    healthPath: options.healthPath ?? "/healthz",
    readyPath: options.readyPath ?? "/readyz",
    metricsPath: options.metricsPath ?? "/metrics",
    token,
    allowedHosts: options.allowedHosts ?? defaultAllowedHosts(host),
    // A client-named stdio MCP server is a command run here: only loopback servers pass them unless told.
    stdioMcpServers: options.stdioMcpServers ?? (loopback ? "allow" : "refuse"),
  } as ConstructorParameters<typeof AcpServer>[0]);
  // Sockets that have not authenticated are capped and given a short deadline (socket-admission.ts).
  const admission = new SocketAdmission(options);
  const handler = createNodeHttpHandler(server, { admission });
  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: server.limits.maxMessageBytes,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(WEBSOCKET_SUBPROTOCOL) ? WEBSOCKET_SUBPROTOCOL : false),
  });
  const upgrade = createNodeWebSocketUpgradeHandler(server, webSockets, { admission });

  let listener: NetServer | HttpServer | HttpsServer | Http2SecureServer;
  if (options.tls) {
    const { cert, key, ca } = options.tls;
    listener =
      options.http2 === false
        ? createHttpsServer({ cert, key, ca }, handler as never)
        : createSecureServer({ cert, key, ca, allowHTTP1: true }, handler as never);
    listener.on("upgrade", upgrade);
  } else if (options.h2c) {
    const servers = createCleartextServers(handler as never);
    servers.http1.on("upgrade", upgrade);
    keepIdleSocketsLonger(servers.http1);
    listener = servers.net;
  } else {
    listener = createHttpServer(handler as never);
    listener.on("upgrade", upgrade);
  }
  keepIdleSocketsLonger(listener);
  const sockets = new Set<Socket>();
  listener.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    admission.accept(socket);
  });
  listener.listen(options.port ?? 0, host);
  await Promise.race([once(listener, "listening"), once(listener, "error").then(([error]) => Promise.reject(error))]);
  const port = (listener.address() as AddressInfo).port;
  const authority = `${formatHost(host)}:${port}`;
  const secure = options.tls !== undefined;

  let closing: Promise<void> | undefined;
  const close = (closeOptions: { graceMs?: number } = {}): Promise<void> => {
    closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      await server.close({ graceMs: closeOptions.graceMs ?? options.closeGraceMs ?? 2000 });
      for (const client of webSockets.clients) client.terminate();
      // Responses still being written get a moment; then every socket goes.
      const settle = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, 500);
      (listener as HttpServer).closeIdleConnections?.();
      await stopped;
      clearTimeout(settle);
      admission.dispose();
      webSockets.close();
    })();
    return closing;
  };

  const first = token === undefined ? undefined : typeof token === "string" ? token : token[0];
  return {
    server,
    url: `${secure ? "https" : "http"}://${authority}${path}`,
    webSocketUrl: `${secure ? "wss" : "ws"}://${authority}${path}`,
    host,
    port,
    token: first,
    tokenGenerated,
    close,
  };
}
