/**
 * `AcpServer`: hosts an agent per client connection over Streamable HTTP and WebSocket on one endpoint, on
 * fetch-style `Request`/`Response` (any runtime), with the official SDK 2.4.0's API (`handleRequest`,
 * `prepareWebSocketUpgrade`, `close`) and acpkit's additions: access control, limits, a health endpoint, response
 * headers (affinity cookies), connection events, graceful close, and a backend seam: Streamable HTTP connections live
 * in a `ServerBackend` (in memory by default; shared by servers that are nodes of one cluster), see `backend/`.
 *
 * `new AcpServer(options)` keeps the official defaults (no token unless one is given) but still checks Host and
 * Origin; `createAcpServer(options)` is acpkit's own, secure by default: it refuses to start without a token
 * unless told `insecureNoToken: true`.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { silentLogger, type Logger } from "../../jsonrpc/logger.js";
import { HEADER_CONNECTION_ID, WEBSOCKET_SUBPROTOCOL } from "../http-protocol.js";
import { AccessPolicy, type AccessDecision, type SocketInfo } from "./access.js";
import type { AgentConnector } from "../../acp/agent-connector.js";
import { resolveAgent, safePathname } from "./agent-source.js";
import type { HostOptions, NodeBackend, ServerNode } from "./backend/backend.js";
import { MemoryServerBackend } from "./backend/memory-backend.js";
import { officialBackend } from "./backend/official-backend.js";
import { HostedConnections } from "./hosted-connections.js";
import { metricsResponse, operationOf, readinessResponse } from "./operations.js";
import { handleDelete, handleGet, handlePost } from "./http-handlers.js";
import { resolveLimits, type ResolvedLimits } from "./limits.js";
import { BodyBudget } from "./request-body.js";
import {
  ALLOWED_METHODS,
  corsHeaders,
  preflightResponse,
  textResponse,
  withHeaders,
  type HeadersInitLike,
} from "./responses.js";
import type { ServerContext } from "./server-context.js";
import type { ServerConnection } from "./server-connection.js";
import type {
  AcpServerOptions,
  AcpServerSettings,
  ConnectionStats,
  HandleRequestOptions,
  PreparedWebSocketUpgrade,
  PrepareWebSocketUpgradeOptions,
  WebSocketUpgradeCheck,
} from "./server-options.js";
import { WebSocketSession } from "./websocket-session.js";
import { RefusalLog } from "./refusal-log.js";
import { observerAgent } from "./shared/observer-agent.js";
import type { SessionHub, SharedSessionSummary } from "./shared/session-hub.js";
import * as sharing from "./shared/sharing-http.js";

export type {
  AcpServerOptions,
  AcpServerSettings,
  AgentSource,
  ConnectionEvent,
  ConnectionStats,
  HandleRequestOptions,
  PreparedWebSocketUpgrade,
  PrepareWebSocketUpgradeOptions,
  ResponseHeadersContext,
  WebSocketUpgradeCheck,
} from "./server-options.js";

export class AcpServer {
  readonly limits: ResolvedLimits;
  readonly #agent: AgentConnector;
  readonly #settings: AcpServerSettings;
  readonly #access: AccessPolicy;
  readonly #logger: Logger;
  /** Refused requests, with where from; a flood of them summed up (refusal-log.ts). */
  readonly #refusals: RefusalLog;
  readonly #connections: HostedConnections;
  readonly #backend: NodeBackend;
  readonly #sockets = new Set<WebSocketSession>();
  readonly #context: ServerContext;
  /** Shared sessions (`sharedSessions` option); undefined when sharing is off. */
  readonly #hub: SessionHub | undefined;
  readonly #sessionsPath: string | undefined;
  #closing = false;

  constructor(options: AcpServerOptions) {
    this.#agent = resolveAgent(options, true)!;
    this.#settings = options;
    this.limits = resolveLimits(options);
    this.#logger = options.logger ?? silentLogger;
    this.#refusals = new RefusalLog(this.#logger);
    const hub = (this.#hub = sharing.hubOf(options, this.#logger));
    this.#sessionsPath = hub && sharing.sessionsPathOf(options);
    this.#connections = new HostedConnections({
      settings: options,
      limits: this.limits,
      logger: this.#logger,
      hub,
      closing: () => this.#closing,
    });
    this.#access = new AccessPolicy(options, hub && ((token) => hub.shareTokenSession(token)));
    if (options.backend !== undefined && options.httpBackend !== undefined)
      throw new TypeError("Give either backend (acpkit's) or httpBackend (the official shape), not both.");
    const backend =
      options.backend ??
      (options.httpBackend !== undefined ? officialBackend(options.httpBackend) : new MemoryServerBackend());
    const node: ServerNode = {
      limits: this.limits,
      logger: this.#logger,
      host: (hostOptions) => this.#host(hostOptions),
      opened: (connection) => this.#connections.register(connection),
    };
    this.#backend = backend.bind(node);
    if (hub !== undefined && this.#backend.sharedSessions) hub.connectRelay(this.#backend.sharedSessions(hub));
    this.#context = {
      limits: this.limits,
      logger: this.#logger,
      backend: this.#backend,
      bodyBudget: new BodyBudget(this.limits.maxBufferedRequestBytes),
      openConnection: (transport, connector, remoteAddress) =>
        this.#connections.open(transport, connector, remoteAddress),
      register: (connection) => this.#connections.register(connection),
    };
  }

  /** This server's node id in its backend (unique among the servers sharing the backend). */
  get nodeId(): string {
    return this.#backend.nodeId;
  }

  /** Where the server reports connections and refusals (`options.logger`; silent by default). */
  get logger(): Logger {
    return this.#logger;
  }

  /** Whether clients must present a bearer token. */
  get requiresToken(): boolean {
    return this.#access.requiresToken;
  }

  /** Connections not yet ended (HTTP and WebSocket, initializing or open). */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** A snapshot of every connection not yet ended: for monitoring. */
  stats(): ConnectionStats[] {
    return this.#connections.stats();
  }

  /** The live shared sessions and who is attached (what `GET <path>/sessions` answers); empty when sharing is off. */
  sharedSessions(): SharedSessionSummary[] {
    return this.#hub?.list() ?? [];
  }

  /** Whether `close()` was called: new connections are refused. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Handles one Streamable HTTP request (and the health endpoint). Never throws for a client's mistake. */
  async handleRequest(request: Request, options: HandleRequestOptions = {}): Promise<Response> {
    // A Host that is not an authority could have changed the URL itself: refused before the URL is trusted.
    const from = options.socket?.remoteAddress;
    const badHost = this.#refusal(this.#access.checkHostSyntax(request), from);
    if (badHost) return badHost;
    const pathname = safePathname(request.url);
    const { path } = this.#settings;
    const operation = operationOf(this.#settings, pathname, request.method);
    if (operation === "health") return textResponse(this.#closing ? 503 : 200, this.#closing ? "closing\n" : "ok\n");
    if (operation === "ready") return readinessResponse(this.#closing, this.#backend);
    const listing = this.#hub !== undefined && pathname === this.#sessionsPath && request.method === "GET";
    if (!listing && path !== undefined && pathname !== path && operation === undefined)
      return textResponse(404, `Not Found: the ACP endpoint is ${path}`);
    const origin = request.headers.get("origin");
    const refused =
      this.#refusal(this.#access.checkHost(request, options.socket), from) ??
      this.#refusal(this.#access.checkOrigin(request), from);
    if (refused) return refused;
    const cors = origin !== null && this.#access.isListedOrigin(origin) ? corsHeaders(origin) : undefined;
    if (request.method === "OPTIONS") {
      return cors ? preflightResponse(origin!) : textResponse(405, "Method Not Allowed", { Allow: ALLOWED_METHODS });
    }
    if (this.#hub && sharing.bearsShareToken(request)) await sharing.learnShareToken(request, this.#hub);
    const decision = this.#access.checkToken(request);
    const unauthorized = this.#refusal(decision, from, cors);
    if (unauthorized) return unauthorized;
    options.onAccessGranted?.();
    const share = decision.ok ? decision.share : undefined;
    if (operation === "metrics")
      return share === undefined ? metricsResponse(this, this.#backend) : textResponse(403, "Forbidden: a share token");
    const gated = this.#hub && sharing.sharingGate(request, listing, share, this.#hub, this.#connections.list());
    if (gated) return withHeaders(await gated, cors);
    const connector = share !== undefined ? observerAgent(share) : (resolveAgent(options, false) ?? this.#agent);
    // A connection is used only with the credential it was opened with (by its fingerprint).
    const credential = await this.#access.credentialOf(decision);
    let response: Response;
    switch (request.method) {
      case "POST":
        response = await handlePost(this.#context, request, connector, options.socket?.remoteAddress, credential);
        break;
      case "GET":
        response = await handleGet(this.#context, request, credential);
        break;
      case "DELETE":
        response = await handleDelete(this.#context, request, credential);
        break;
      default:
        response = textResponse(405, `Method Not Allowed: the ACP endpoint answers ${ALLOWED_METHODS}`, {
          Allow: ALLOWED_METHODS,
        });
    }
    return withHeaders(
      withHeaders(response, cors),
      this.#extraHeaders(request, response.headers.get(HEADER_CONNECTION_ID)),
    );
  }

  /**
   * acpkit: checks a WebSocket upgrade request before it is accepted (path, Host, Origin, token from `Authorization`
   * or the `acp.bearer.*` subprotocol, capacity). On success, says which subprotocol to select (`acp` when offered;
   * never the bearer one) and which headers the 101 carries.
   */
  checkWebSocketUpgrade(request: Request, socket?: SocketInfo): WebSocketUpgradeCheck {
    const badHost = this.#refusal(this.#access.checkHostSyntax(request), socket?.remoteAddress);
    if (badHost) return { ok: false, response: badHost };
    const { path } = this.#settings;
    if (path !== undefined && safePathname(request.url) !== path)
      return { ok: false, response: textResponse(404, `Not Found: the ACP endpoint is ${path}`) };
    const offered = (request.headers.get("sec-websocket-protocol") ?? "")
      .split(",")
      .map((protocol) => protocol.trim())
      .filter(Boolean);
    const refused = this.#refusal(this.#access.check(request, socket, offered), socket?.remoteAddress);
    if (refused) return { ok: false, response: refused };
    const full = this.#connections.capacityProblem();
    if (full) return { ok: false, response: textResponse(503, `Service Unavailable: ${full}`, { "Retry-After": "5" }) };
    const decision = this.#access.checkToken(request, offered);
    return {
      ok: true,
      ...(decision.ok && decision.share !== undefined ? { agent: observerAgent(decision.share) } : {}),
      protocol: offered.includes(WEBSOCKET_SUBPROTOCOL) ? WEBSOCKET_SUBPROTOCOL : undefined,
      headers: new Headers(this.#extraHeaders(request, undefined)),
    };
  }

  /** acpkit: in a cluster, reads an upgrade's share token issued by another node; await it, when a promise, first. */
  prepareWebSocketCredentials(request: Request): Promise<void> | undefined {
    return this.#hub && sharing.upgradeShareToken(request, this.#hub);
  }

  /** Creates a WebSocket connection before the upgrade is accepted. Throws when the server is full or closing. */
  prepareWebSocketUpgrade(options: PrepareWebSocketUpgradeOptions = {}): PreparedWebSocketUpgrade {
    const opened = this.#connections.open(
      "websocket",
      resolveAgent(options, false) ?? this.#agent,
      options.socket?.remoteAddress,
    );
    if (typeof opened === "string") throw new Error(`cannot accept the WebSocket: ${opened}`);
    const connection = opened;
    let settled = false;
    return {
      connectionId: connection.id,
      accept: (socket) => {
        if (settled) throw new Error("This WebSocket upgrade was already accepted or rejected.");
        settled = true;
        const session = new WebSocketSession(this.#context, connection, socket);
        this.#sockets.add(session);
        void session.closed.then(() => this.#sockets.delete(session));
        session.start();
      },
      reject: () => {
        if (settled) return;
        settled = true;
        void connection.end({ reason: "upgrade rejected" });
      },
    };
  }

  /**
   * Closes every connection and stops their agents; new connections are refused from now on. With `graceMs`,
   * running prompt turns are first cancelled (`session/cancel`) and given that long to answer, so clients see
   * their turns end `cancelled`. Resolves once every agent is done.
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.#closing = true;
    const connections = this.#connections.list();
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0 && connections.some((connection) => connection.runningPrompts.length > 0)) {
      for (const connection of connections) connection.cancelPrompts();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(connections.map((connection) => connection.promptsSettled())),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
    }
    await Promise.all(connections.map((connection) => connection.end({ reason: "server closing" })));
    await Promise.all([...this.#sockets].map((session) => session.closed));
    await this.#backend.close();
    this.#refusals.flush();
  }

  /** `ServerNode.host`: an agent host for a Streamable HTTP connection of the backend's. */
  #host(options: HostOptions): ServerConnection | string {
    const backend = this.#backend;
    return this.#connections.open("http", options.connector, options.remoteAddress, {
      ...(options.connectionId === undefined ? {} : { connectionId: options.connectionId }),
      ...(backend.serverRequestId === undefined
        ? {}
        : { serverRequestId: (connectionId: string) => backend.serverRequestId!(connectionId) }),
      ...(options.onEnd === undefined ? {} : { onEnd: options.onEnd }),
    });
  }

  #refusal(decision: AccessDecision, from: string | undefined, extra?: Record<string, string>): Response | undefined {
    if (decision.ok) return undefined;
    this.#refusals.refused(decision.status, decision.message, from);
    return textResponse(decision.status, decision.message, { ...decision.headers, ...extra });
  }

  #extraHeaders(request: Request, connectionId: string | null | undefined): HeadersInitLike | undefined {
    const hook = this.#settings.responseHeaders;
    if (!hook) return undefined;
    return hook({ request, connectionId: connectionId ?? request.headers.get(HEADER_CONNECTION_ID) ?? undefined });
  }
}
