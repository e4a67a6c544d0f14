/**
 * The 2.x client API: `client()` builds a `ClientApp` from handlers keyed by method name; `connectWith()` runs a
 * workflow against an agent over a stream (or an `AgentApp` in memory). A drop-in for `client()` of
 * `@agentclientprotocol/sdk`.
 */
import {
  RequestError,
  type JsonRpcId,
  type MaybePromise,
  type SendRequestOptions,
  type Stream,
} from "../jsonrpc/index.js";
import { handled } from "../jsonrpc/handled.js";
import type { NewSessionRequest, SessionNotification } from "../protocol/index.js";
import type { AcpConnection } from "../acp/acp-connection.js";
import type {
  AppConnection,
  AppOptions,
  ExtensionMethod,
  HandlerContextBase,
  HandlerResult,
  MethodOf,
  NotificationParamsOf,
  ProtocolTypes,
  RequestIdentity,
  RequestParamsOf,
  RequestResultOf,
  StableProtocol,
  UnstableAppOptions,
  UnstableProtocol,
} from "../acp/app-types.js";
import {
  ACP_CONNECTION,
  APP_SIDE,
  AppCore,
  ConnectionHandle,
  connectWith,
  OPEN_APP,
  type AppSide,
  type ConnectableApp,
  type OpenedApp,
} from "../acp/connect.js";
import type { ParamsParser } from "../acp/routes.js";
import { SessionBuilder } from "./active-session.js";
import { ActiveSessionFeed } from "./active-session-feed.js";

type AgentRequests<P extends ProtocolTypes> = P["agentRequests"];
type AgentNotifications<P extends ProtocolTypes> = P["agentNotifications"];

/** Requests that succeed when the session is already gone: closing or deleting twice is not an error. */
const IDEMPOTENT_SESSION_METHODS = new Set(["session/close", "session/delete"]);

/**
 * What a client uses to call the agent: typed `request` and `notify` by method name, and `buildSession`.
 * `requestId` is the id of the request being handled (undefined outside request handlers).
 */
export class ClientContext<P extends ProtocolTypes = StableProtocol> {
  /** @internal Contexts come from the app: handler contexts, `connect().agent`, `connectWith`. */
  constructor(
    private readonly sessions: ActiveSessionFeed,
    private readonly currentRequestId?: JsonRpcId,
  ) {}

  /** JSON-RPC id of the request being handled; undefined outside request handlers. */
  get requestId(): JsonRpcId | undefined {
    return this.currentRequestId;
  }

  /** The connection behind this context (for acpkit toolkits). */
  get [ACP_CONNECTION](): AcpConnection {
    return this.sessions.connection;
  }

  /** Starts building a session: a `cwd` (absolute), or a whole `session/new` request. */
  buildSession(cwd: string): SessionBuilder;
  buildSession(request: NewSessionRequest): SessionBuilder;
  buildSession(cwdOrRequest: string | NewSessionRequest): SessionBuilder {
    const request = typeof cwdOrRequest === "string" ? { cwd: cwdOrRequest, mcpServers: [] } : cwdOrRequest;
    return new SessionBuilder(this.sessions, request);
  }

  /**
   * Sends a request to the agent. Table methods infer params and result and are checked against the schema both
   * ways; other (extension) methods take their types as generics. A -32002 (resource not found) answer to
   * `session/close` or `session/delete` resolves with `{}`: the session is gone either way.
   */
  request<M extends MethodOf<AgentRequests<P>>>(
    method: M,
    params: RequestParamsOf<AgentRequests<P>, M>,
    options?: SendRequestOptions,
  ): Promise<RequestResultOf<AgentRequests<P>, M>>;
  request<Response = unknown, Params = unknown, M extends string = string>(
    method: ExtensionMethod<M, AgentRequests<P>>,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    const response = this.sessions.connection.request(method, params, options);
    if (!IDEMPOTENT_SESSION_METHODS.has(method)) return response;
    return handled(
      response.catch((error: unknown) => {
        if (error instanceof RequestError && error.code === -32002) return {};
        throw error;
      }),
    );
  }

  /** Sends a notification to the agent (table methods are typed and checked). */
  notify<M extends MethodOf<AgentNotifications<P>>>(
    method: M,
    params: NotificationParamsOf<AgentNotifications<P>, M>,
  ): Promise<void>;
  notify<Params = unknown, M extends string = string>(
    method: ExtensionMethod<M, AgentNotifications<P>>,
    params?: Params,
  ): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.sessions.connection.notify(method, params);
  }
}

/** Context of every client handler: the method, parsed params, a signal, and `agent` to call back. */
export type ClientHandlerContext<Params, P extends ProtocolTypes = StableProtocol> = HandlerContextBase<Params> & {
  /** Typed context for calling the agent. */
  agent: ClientContext<P>;
};
/** Context of a client request handler: adds `requestId`. */
export type ClientRequestContext<Params, P extends ProtocolTypes = StableProtocol> = ClientHandlerContext<Params, P> &
  RequestIdentity;
/** Context of a client notification handler (no request id). */
export type ClientNotificationContext<Params, P extends ProtocolTypes = StableProtocol> = ClientHandlerContext<
  Params,
  P
>;
/** A request handler of a `ClientApp`. A thrown `RequestError` is sent as is; other throws become -32603. */
export type ClientRequestHandler<Params, Response, P extends ProtocolTypes = StableProtocol> = (
  context: ClientRequestContext<Params, P>,
) => MaybePromise<Response>;
/** A notification handler of a `ClientApp`. */
export type ClientNotificationHandler<Params, P extends ProtocolTypes = StableProtocol> = (
  context: ClientNotificationContext<Params, P>,
) => MaybePromise<void>;
/** A handler run when a `ClientApp` opens a connection. */
export type ClientConnectHandler<P extends ProtocolTypes = StableProtocol> = (
  connection: ClientConnection<P>,
) => MaybePromise<void>;

/** The requests a client handles, by method name. */
export type ClientRequestMethod<P extends ProtocolTypes = StableProtocol> = MethodOf<P["clientRequests"]>;
/** The notifications a client handles, by method name. */
export type ClientNotificationMethod<P extends ProtocolTypes = StableProtocol> = MethodOf<P["clientNotifications"]>;
/** Client request handlers by method; a result without required fields may be omitted (answered `{}`). */
export type ClientRequestHandlersByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in ClientRequestMethod<P>]: ClientRequestHandler<
    RequestParamsOf<P["clientRequests"], M>,
    HandlerResult<RequestResultOf<P["clientRequests"], M>>,
    P
  >;
};
/** Client notification handlers by method. */
export type ClientNotificationHandlersByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in ClientNotificationMethod<P>]: ClientNotificationHandler<NotificationParamsOf<P["clientNotifications"], M>, P>;
};
/** Params of the requests a client handles, by method. */
export type ClientRequestParamsByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in ClientRequestMethod<P>]: RequestParamsOf<P["clientRequests"], M>;
};
/** Results of the requests a client handles, by method. */
export type ClientRequestResponsesByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in ClientRequestMethod<P>]: RequestResultOf<P["clientRequests"], M>;
};
/** Params of the notifications a client handles, by method. */
export type ClientNotificationParamsByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in ClientNotificationMethod<P>]: NotificationParamsOf<P["clientNotifications"], M>;
};

/** The client's side of an open connection: `agent` calls the agent for the connection's lifetime. */
export interface ClientConnection<P extends ProtocolTypes = StableProtocol> extends AppConnection {
  /** Context for calling the agent and building sessions. */
  readonly agent: ClientContext<P>;
}

class ClientConnectionHandle<P extends ProtocolTypes> extends ConnectionHandle implements ClientConnection<P> {
  readonly agent: ClientContext<P>;

  constructor(sessions: ActiveSessionFeed) {
    super(sessions.connection);
    this.agent = new ClientContext<P>(sessions);
  }
}

function clientSide<P extends ProtocolTypes>(): AppSide<ActiveSessionFeed, ClientConnection<P>> {
  return {
    side: "client",
    createState: (connection) => new ActiveSessionFeed(connection),
    createHandle: (sessions) => new ClientConnectionHandle<P>(sessions),
    requestContext: (sessions, params, request, method) => ({
      method,
      params,
      requestId: request.id,
      get signal() {
        return request.signal;
      },
      agent: new ClientContext(sessions, request.id),
    }),
    notificationContext: (sessions, params, method) => ({
      method,
      params,
      signal: sessions.connection.signal,
      agent: new ClientContext(sessions),
    }),
    // Every session/update goes to the active sessions first, then to the app's handler (or its fallback).
    configure: (sessions) => {
      const routes = sessions.connection.routes;
      const own = routes.notifications.get("session/update");
      routes.onNotification("session/update", {
        parse: own?.parse,
        handler: (params, method) => {
          sessions.route(params as SessionNotification);
          return (own ?? routes.fallbackNotification)?.handler(params, method);
        },
      });
    },
  };
}

/**
 * A client built from handlers keyed by ACP method name. Each `on...` returns `this` for chaining.
 *
 * Params are validated by the method's schema before a handler runs (-32602, naming the failing path, when they
 * are not valid); a handler's result is checked before it is sent. `session/update` notifications also feed
 * the `ActiveSession`s of the connection, before the app's own handler sees them. Handlers are copied onto each
 * connection when it opens.
 */
export class ClientApp<P extends ProtocolTypes = StableProtocol> implements ConnectableApp<"client"> {
  readonly [APP_SIDE] = "client" as const;
  private readonly core: AppCore<ActiveSessionFeed, ClientConnection<P>>;

  constructor(options: AppOptions = {}) {
    this.core = new AppCore(clientSide<P>(), options);
  }

  /** The name given in the options. */
  get name(): string | undefined {
    return this.core.options.name;
  }

  /** @internal Opens this app on a stream for an `AgentApp` that connects to it in memory. */
  [OPEN_APP](stream: Stream): OpenedApp<ClientConnection<P>> {
    return this.core.open(stream);
  }

  /**
   * Connects to an agent over `target`: a `Stream` (e.g. `ndJsonStream` over a child process's stdio), or an
   * `AgentApp` in memory. Runs the `onConnect` handlers first; one that throws closes the connection and the
   * error is rethrown.
   */
  connect(target: Stream | ConnectableApp<"agent">): ClientConnection<P> {
    return this.core.connect(target).handle;
  }

  /**
   * Connects (as `connect`), runs `op` with a context for calling the agent, then closes the connection.
   * Rejects as `op` does, or with the close reason if the connection closes first.
   */
  connectWith<T>(
    target: Stream | ConnectableApp<"agent">,
    op: (context: ClientContext<P>) => MaybePromise<T>,
  ): Promise<T> {
    return connectWith(this.core, target, (handle) => op(handle.agent));
  }

  /**
   * Registers a handler run (synchronously, in registration order, not awaited) when a connection opens, before
   * it handles its first message. A handler that throws or rejects closes the connection.
   */
  onConnect(handler: ClientConnectHandler<P>): this {
    this.core.onConnect(handler);
    return this;
  }

  /**
   * Registers a request handler. Table methods infer their types; other methods need a params parser (a function
   * or a `{ parse }` object such as a zod schema); `"*"` (no parser, raw params) handles requests with no handler.
   */
  onRequest(method: "*", handler: ClientRequestHandler<unknown, unknown, P>): this;
  onRequest<M extends ClientRequestMethod<P>>(method: M, handler: ClientRequestHandlersByMethod<P>[M]): this;
  onRequest<Params, Response>(
    method: string,
    params: ParamsParser<Params>,
    handler: ClientRequestHandler<Params, Response, P>,
  ): this;
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): this {
    this.core.onRequest(method, parserOrHandler, handler);
    return this;
  }

  /**
   * Registers a notification handler, with the same shapes as `onRequest`. Handlers start in arrival order but
   * are not awaited one after another: serialize async work (such as applying a session's updates) yourself.
   * `ActiveSession` already queues its updates in order.
   */
  onNotification(method: "*", handler: ClientNotificationHandler<unknown, P>): this;
  onNotification<M extends ClientNotificationMethod<P>>(
    method: M,
    handler: ClientNotificationHandlersByMethod<P>[M],
  ): this;
  onNotification<Params>(
    method: string,
    params: ParamsParser<Params>,
    handler: ClientNotificationHandler<Params, P>,
  ): this;
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): this {
    this.core.onNotification(method, parserOrHandler, handler);
    return this;
  }
}

/** Creates a client app: register handlers, then `connectWith(agent, op)` to run a workflow against an agent. */
export function client(options: UnstableAppOptions): ClientApp<UnstableProtocol>;
export function client(options?: AppOptions): ClientApp;
export function client(options?: AppOptions): ClientApp<any> {
  return new ClientApp(options);
}

/**
 * The `ClientApp` of the unstable entry point (`@acpkit/sdk/unstable`): speaks ACP v1 with its unstable additions
 * whatever `options.unstable` says, and types its handlers and calls with the unstable method maps.
 */
export class UnstableClientApp extends ClientApp<UnstableProtocol> {
  constructor(options: AppOptions = {}) {
    super({ ...options, unstable: true });
  }
}

/** `client()` of the unstable entry point: an `UnstableClientApp`. */
export function unstableClient(options: AppOptions = {}): UnstableClientApp {
  return new UnstableClientApp(options);
}
