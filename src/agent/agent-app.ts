/**
 * The 2.x agent API: `agent()` builds an `AgentApp` from handlers keyed by method name; `connect()` serves a
 * client over a stream (or a `ClientApp` in memory). A drop-in for `agent()` of `@agentclientprotocol/sdk`.
 */
import type { JsonRpcId, MaybePromise, SendRequestOptions, Stream } from "../jsonrpc/index.js";
import type { CreateTerminalRequest, CreateTerminalResponse } from "../protocol/index.js";
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
  isStream,
  OPEN_APP,
  type AppSide,
  type ConnectableApp,
  type OpenedApp,
} from "../acp/connect.js";
import type { ParamsParser } from "../acp/routes.js";
import { createTerminalHandle, type TerminalHandle } from "./terminal-handle.js";

type ClientRequests<P extends ProtocolTypes> = P["clientRequests"];
type ClientNotifications<P extends ProtocolTypes> = P["clientNotifications"];

/**
 * What agent handlers use to call the client: typed `request` and `notify` by method name, and `createTerminal`.
 * `requestId` is the id of the request being handled (undefined in notification handlers and in `connect` contexts).
 */
export class AgentContext<P extends ProtocolTypes = StableProtocol> {
  /** @internal Contexts come from the app: handler contexts, `connect().client`, `connectWith`. */
  constructor(
    private readonly connection: AcpConnection,
    private readonly currentRequestId?: JsonRpcId,
  ) {}

  /** JSON-RPC id of the request being handled; undefined outside request handlers. */
  get requestId(): JsonRpcId | undefined {
    return this.currentRequestId;
  }

  /** The connection behind this context (for acpkit toolkits). */
  get [ACP_CONNECTION](): AcpConnection {
    return this.connection;
  }

  /**
   * Runs a command in a new client terminal (`terminal/create`) and returns a handle to read its output, wait
   * for it, kill it and release it. Needs the client's `terminal` capability; release the handle when done
   * (or `await using`).
   */
  async createTerminal(params: CreateTerminalRequest, options?: SendRequestOptions): Promise<TerminalHandle> {
    const response = await this.connection.request<CreateTerminalResponse>("terminal/create", params, options);
    return createTerminalHandle(this.connection, params.sessionId, response.terminalId);
  }

  /**
   * Sends a request to the client. Table methods infer params and result and are checked against the schema
   * both ways; other (extension) methods take their types as generics.
   */
  request<M extends MethodOf<ClientRequests<P>>>(
    method: M,
    params: RequestParamsOf<ClientRequests<P>, M>,
    options?: SendRequestOptions,
  ): Promise<RequestResultOf<ClientRequests<P>, M>>;
  request<Response = unknown, Params = unknown, M extends string = string>(
    method: ExtensionMethod<M, ClientRequests<P>>,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    return this.connection.request(method, params, options);
  }

  /** Sends a notification to the client (table methods are typed and checked). */
  notify<M extends MethodOf<ClientNotifications<P>>>(
    method: M,
    params: NotificationParamsOf<ClientNotifications<P>, M>,
  ): Promise<void>;
  notify<Params = unknown, M extends string = string>(
    method: ExtensionMethod<M, ClientNotifications<P>>,
    params?: Params,
  ): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.connection.notify(method, params);
  }
}

/** Context of every agent handler: the method, parsed params, a signal, and `client` to call back. */
export type AgentHandlerContext<Params, P extends ProtocolTypes = StableProtocol> = HandlerContextBase<Params> & {
  /** Typed context for calling the client. */
  client: AgentContext<P>;
};
/** Context of an agent request handler: adds `requestId`. */
export type AgentRequestContext<Params, P extends ProtocolTypes = StableProtocol> = AgentHandlerContext<Params, P> &
  RequestIdentity;
/** Context of an agent notification handler (no request id). */
export type AgentNotificationContext<Params, P extends ProtocolTypes = StableProtocol> = AgentHandlerContext<Params, P>;
/** A request handler of an `AgentApp`. A thrown `RequestError` is sent as is; other throws become -32603. */
export type AgentRequestHandler<Params, Response, P extends ProtocolTypes = StableProtocol> = (
  context: AgentRequestContext<Params, P>,
) => MaybePromise<Response>;
/** A notification handler of an `AgentApp`. */
export type AgentNotificationHandler<Params, P extends ProtocolTypes = StableProtocol> = (
  context: AgentNotificationContext<Params, P>,
) => MaybePromise<void>;
/** A handler run when an `AgentApp` opens a connection. */
export type AgentConnectHandler<P extends ProtocolTypes = StableProtocol> = (
  connection: AgentConnection<P>,
) => MaybePromise<void>;

/** The requests an agent handles, by method name. */
export type AgentRequestMethod<P extends ProtocolTypes = StableProtocol> = MethodOf<P["agentRequests"]>;
/** The notifications an agent handles, by method name. */
export type AgentNotificationMethod<P extends ProtocolTypes = StableProtocol> = MethodOf<P["agentNotifications"]>;
/** Agent request handlers by method; a result without required fields may be omitted (answered `{}`). */
export type AgentRequestHandlersByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in AgentRequestMethod<P>]: AgentRequestHandler<
    RequestParamsOf<P["agentRequests"], M>,
    HandlerResult<RequestResultOf<P["agentRequests"], M>>,
    P
  >;
};
/** Agent notification handlers by method. */
export type AgentNotificationHandlersByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in AgentNotificationMethod<P>]: AgentNotificationHandler<NotificationParamsOf<P["agentNotifications"], M>, P>;
};
/** Params of the requests an agent handles, by method. */
export type AgentRequestParamsByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in AgentRequestMethod<P>]: RequestParamsOf<P["agentRequests"], M>;
};
/** Results of the requests an agent handles, by method. */
export type AgentRequestResponsesByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in AgentRequestMethod<P>]: RequestResultOf<P["agentRequests"], M>;
};
/** Params of the notifications an agent handles, by method. */
export type AgentNotificationParamsByMethod<P extends ProtocolTypes = StableProtocol> = {
  [M in AgentNotificationMethod<P>]: NotificationParamsOf<P["agentNotifications"], M>;
};

/** The agent's side of an open connection: `client` calls the client for the connection's lifetime. */
export interface AgentConnection<P extends ProtocolTypes = StableProtocol> extends AppConnection {
  /** Context for calling the client. */
  readonly client: AgentContext<P>;
  /** Present when connected with `deferConnectHandlers`: runs the `onConnect` handlers (once). */
  startConnectHandlers?(): void;
}

class AgentConnectionHandle<P extends ProtocolTypes> extends ConnectionHandle implements AgentConnection<P> {
  readonly client: AgentContext<P>;

  constructor(connection: AcpConnection) {
    super(connection);
    this.client = new AgentContext<P>(connection);
  }
}

function agentSide<P extends ProtocolTypes>(): AppSide<AcpConnection, AgentConnection<P>> {
  return {
    side: "agent",
    createState: (connection) => connection,
    createHandle: (connection) => new AgentConnectionHandle<P>(connection),
    requestContext: (connection, params, request, method) => ({
      method,
      params,
      requestId: request.id,
      get signal() {
        return request.signal;
      },
      client: new AgentContext(connection, request.id),
    }),
    notificationContext: (connection, params, method) => ({
      method,
      params,
      signal: connection.signal,
      client: new AgentContext(connection),
    }),
    // The initialization gate: with an initialize handler, other requests get -32600 until one initialize succeeded.
    connectionSettings: (core) => ({ requireInitialize: core.hasRequestHandler("initialize") }),
  };
}

/**
 * An agent built from handlers keyed by ACP method name. Each `on...` returns `this` for chaining.
 *
 * Params are validated by the method's schema before a handler runs (-32602, naming the failing path, when they
 * are not valid); a handler's result is checked before it is sent. Registering an `initialize` handler turns on
 * the initialization gate: other requests are refused with -32600 until an `initialize` succeeded. Handlers are
 * copied onto each connection when it opens.
 */
export class AgentApp<P extends ProtocolTypes = StableProtocol> implements ConnectableApp<"agent"> {
  readonly [APP_SIDE] = "agent" as const;
  private readonly core: AppCore<AcpConnection, AgentConnection<P>>;

  constructor(options: AppOptions = {}) {
    this.core = new AppCore(agentSide<P>(), options);
  }

  /** The name given in the options. */
  get name(): string | undefined {
    return this.core.options.name;
  }

  /** @internal Opens this app on a stream for a `ClientApp` that connects to it in memory. */
  [OPEN_APP](stream: Stream): OpenedApp<AgentConnection<P>> {
    return this.core.open(stream);
  }

  /**
   * Serves a client over `target`: a `Stream` (e.g. `ndJsonStream`), or a `ClientApp` connected in memory.
   * Runs the `onConnect` handlers before the first message is handled; one that throws closes the connection
   * and the error is rethrown. With `deferConnectHandlers` (what a remote server passes, as the official SDK's
   * `AcpServer` does), they run only when the returned handle's `startConnectHandlers()` is called: after the
   * client's `initialize` was answered.
   */
  connect(
    target: Stream | ConnectableApp<"client">,
    options: { deferConnectHandlers?: boolean } = {},
  ): AgentConnection<P> {
    if (options.deferConnectHandlers && isStream(target)) {
      const opened = this.core.open(target);
      let started = false;
      const startConnectHandlers = (): void => {
        if (started) return;
        started = true;
        opened.runConnectHandlers();
      };
      return Object.assign(opened.handle, { startConnectHandlers });
    }
    return this.core.connect(target).handle;
  }

  /**
   * Connects (as `connect`), runs `op` with a context for calling the client, then closes the connection.
   * Rejects as `op` does, or with the close reason if the connection closes first.
   */
  connectWith<T>(
    target: Stream | ConnectableApp<"client">,
    op: (context: AgentContext<P>) => MaybePromise<T>,
  ): Promise<T> {
    return connectWith(this.core, target, (handle) => op(handle.client));
  }

  /**
   * Registers a handler run (synchronously, in registration order, not awaited) when a connection opens, before
   * it handles its first message. A handler that throws or rejects closes the connection.
   */
  onConnect(handler: AgentConnectHandler<P>): this {
    this.core.onConnect(handler);
    return this;
  }

  /**
   * Registers a request handler. Table methods infer their types; other methods need a params parser (a function
   * or a `{ parse }` object such as a zod schema); `"*"` (no parser, raw params) handles requests with no handler.
   */
  onRequest(method: "*", handler: AgentRequestHandler<unknown, unknown, P>): this;
  onRequest<M extends AgentRequestMethod<P>>(method: M, handler: AgentRequestHandlersByMethod<P>[M]): this;
  onRequest<Params, Response>(
    method: string,
    params: ParamsParser<Params>,
    handler: AgentRequestHandler<Params, Response, P>,
  ): this;
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): this {
    this.core.onRequest(method, parserOrHandler, handler);
    return this;
  }

  /**
   * Registers a notification handler, with the same shapes as `onRequest`. Handlers start in arrival order but
   * are not awaited one after another: serialize async work yourself when its order matters.
   */
  onNotification(method: "*", handler: AgentNotificationHandler<unknown, P>): this;
  onNotification<M extends AgentNotificationMethod<P>>(
    method: M,
    handler: AgentNotificationHandlersByMethod<P>[M],
  ): this;
  onNotification<Params>(
    method: string,
    params: ParamsParser<Params>,
    handler: AgentNotificationHandler<Params, P>,
  ): this;
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): this {
    this.core.onNotification(method, parserOrHandler, handler);
    return this;
  }
}

/** Creates an agent app: register handlers, then `connect(stream)` to serve a client. */
export function agent(options: UnstableAppOptions): AgentApp<UnstableProtocol>;
export function agent(options?: AppOptions): AgentApp;
export function agent(options?: AppOptions): AgentApp<any> {
  return new AgentApp(options);
}

/**
 * The `AgentApp` of the unstable entry point (`@acpkit/sdk/unstable`): speaks ACP v1 with its unstable additions
 * whatever `options.unstable` says, and types its handlers and calls with the unstable method maps.
 */
export class UnstableAgentApp extends AgentApp<UnstableProtocol> {
  constructor(options: AppOptions = {}) {
    super({ ...options, unstable: true });
  }
}

/** `agent()` of the unstable entry point: an `UnstableAgentApp`. */
export function unstableAgent(options: AppOptions = {}): UnstableAgentApp {
  return new UnstableAgentApp(options);
}
