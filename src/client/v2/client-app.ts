/**
 * The protocol v2 (draft) client API: `client()` builds a `ClientApp` from handlers keyed by method name; its
 * contexts run v2's initialization lifecycle and build v2 sessions. A drop-in for the official SDK 2.4.0's
 * `experimental/v2` `client()`.
 */
import type { MaybePromise, Stream } from "../../jsonrpc/index.js";
import type { AcpConnection } from "../../acp/acp-connection.js";
import type {
  AppConnection,
  HandlerContextBase,
  HandlerResult,
  MethodOf,
  NotificationParamsOf,
  ProtocolTypes,
  RequestIdentity,
  RequestParamsOf,
  RequestResultOf,
} from "../../acp/app-types.js";
import {
  APP_SIDE,
  AppCore,
  connectWith,
  OPEN_APP,
  type AppSide,
  type ConnectableApp,
  type OpenedApp,
} from "../../acp/connect.js";
import { APP_FLAVOR, type ProtocolFlavor } from "../../acp/flavor.js";
import type { ParamsParser } from "../../acp/routes.js";
import { clientAdmission } from "../../acp/v2/admission.js";
import type { UnrecognizedMethod, V2AppOptions, V2ExtensionMethod, V2Protocol } from "../../acp/v2/app-types.js";
import { V2ConnectionHandle, v2ConnectionState } from "../../acp/v2/connection-state.js";
import { assertNotBuiltIn } from "../../acp/v2/direction.js";
import { InitializationState, type InitializationSnapshot } from "../../acp/v2/initialization.js";
import { v2Flavor } from "../../acp/v2-flavors.js";
import type { UpdateSessionNotification } from "../../protocol/v2.js";
import { ClientContext, type V2ClientState } from "./client-context.js";
import { V2ActiveSessionFeed } from "./active-session-feed.js";

type Init<P extends ProtocolTypes> = InitializationSnapshot<
  RequestParamsOf<P["agentRequests"], "initialize">,
  RequestResultOf<P["agentRequests"], "initialize">
>;

/** Context of every v2 client handler: the method, parsed params, a signal, and `agent` to call back. */
export type ClientHandlerContext<Params, P extends ProtocolTypes = V2Protocol> = HandlerContextBase<Params> & {
  agent: ClientContext<P, Init<P>>;
};
/** Context of a v2 client request handler: adds `requestId`. */
export type ClientRequestContext<Params, P extends ProtocolTypes = V2Protocol> = ClientHandlerContext<Params, P> &
  RequestIdentity;
/** Context of a v2 client notification handler. */
export type ClientNotificationContext<Params, P extends ProtocolTypes = V2Protocol> = ClientHandlerContext<Params, P>;
/** A request handler of a v2 `ClientApp`. */
export type ClientRequestHandler<Params, Response, P extends ProtocolTypes = V2Protocol> = (
  context: ClientRequestContext<Params, P>,
) => MaybePromise<Response>;
/** A notification handler of a v2 `ClientApp`. */
export type ClientNotificationHandler<Params, P extends ProtocolTypes = V2Protocol> = (
  context: ClientNotificationContext<Params, P>,
) => MaybePromise<void>;
/** A handler run when a v2 `ClientApp` opens a connection. */
export type ClientConnectHandler<P extends ProtocolTypes = V2Protocol> = (
  connection: ClientConnection<P>,
) => MaybePromise<void>;

/** The requests a v2 client handles. */
export type ClientRequestMethod<P extends ProtocolTypes = V2Protocol> = MethodOf<P["clientRequests"]>;
/** The notifications a v2 client handles. */
export type ClientNotificationMethod<P extends ProtocolTypes = V2Protocol> = MethodOf<P["clientNotifications"]>;
/** v2 client request handlers by method. */
export type ClientRequestHandlersByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in ClientRequestMethod<P>]: ClientRequestHandler<
    RequestParamsOf<P["clientRequests"], M>,
    HandlerResult<RequestResultOf<P["clientRequests"], M>>,
    P
  >;
};
/** v2 client notification handlers by method. */
export type ClientNotificationHandlersByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in ClientNotificationMethod<P>]: ClientNotificationHandler<NotificationParamsOf<P["clientNotifications"], M>, P>;
};
/** Params of the requests a v2 client handles, by method. */
export type ClientRequestParamsByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in ClientRequestMethod<P>]: RequestParamsOf<P["clientRequests"], M>;
};
/** Results of the requests a v2 client handles, by method. */
export type ClientRequestResponsesByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in ClientRequestMethod<P>]: RequestResultOf<P["clientRequests"], M>;
};
/** Params of the notifications a v2 client handles, by method. */
export type ClientNotificationParamsByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in ClientNotificationMethod<P>]: NotificationParamsOf<P["clientNotifications"], M>;
};

/** The client's side of an open v2 connection. */
export interface ClientConnection<P extends ProtocolTypes = V2Protocol> extends AppConnection {
  /** Resolves with the validated `initialize` exchange once initialized. */
  readonly initialized: Promise<Init<P>>;
  /** Context for calling the agent and building sessions. */
  readonly agent: ClientContext<P, Init<P>>;
}

class ClientConnectionHandle<P extends ProtocolTypes>
  extends V2ConnectionHandle<unknown, unknown>
  implements ClientConnection<P>
{
  readonly agent: ClientContext<P, Init<P>>;

  constructor(state: V2ClientState) {
    super(state);
    this.agent = new ClientContext<P, Init<P>>(state);
  }

  override get initialized(): Promise<Init<P>> {
    return super.initialized as Promise<Init<P>>;
  }
}

function clientSide<P extends ProtocolTypes>(): AppSide<V2ClientState, ClientConnection<P>> {
  return {
    side: "client",
    connectionSettings: () => ({ admission: clientAdmission(new InitializationState()) }),
    createState: (acp: AcpConnection) => ({ ...v2ConnectionState(acp), feed: new V2ActiveSessionFeed(acp) }),
    createHandle: (state) => new ClientConnectionHandle<P>(state),
    requestContext: (state, params, request, method) => ({
      method,
      params,
      requestId: request.id,
      get signal() {
        return request.signal;
      },
      agent: new ClientContext(state, request.id),
    }),
    notificationContext: (state, params, method) => ({
      method,
      params,
      signal: state.acp.signal,
      agent: new ClientContext(state),
    }),
    configure: (state) => {
      const { acp, feed } = state;
      // Every session/update feeds the active sessions first, then the app's handler (or its fallback).
      const routes = acp.routes;
      const own = routes.notifications.get("session/update");
      routes.onNotification("session/update", {
        parse: own?.parse,
        handler: (params, method) => {
          feed.route(params as UpdateSessionNotification);
          return (own ?? routes.fallbackNotification)?.handler(params, method);
        },
      });
    },
  };
}

/**
 * A protocol v2 client built from handlers keyed by method name. Each `on...` returns `this` for chaining.
 * `connectWith(agent, op)` is the usual entry: `op` gets a `ClientContext` to initialize and build sessions.
 */
export class ClientApp<P extends ProtocolTypes = V2Protocol> implements ConnectableApp<"client"> {
  readonly [APP_SIDE] = "client" as const;
  private readonly core: AppCore<V2ClientState, ClientConnection<P>>;

  constructor(options: V2AppOptions = {}) {
    const flavor = (options as { [APP_FLAVOR]?: ProtocolFlavor })[APP_FLAVOR] ?? v2Flavor;
    this.core = new AppCore(clientSide<P>(), { ...options, [APP_FLAVOR]: flavor } as V2AppOptions);
  }

  /** The name given in the options. */
  get name(): string | undefined {
    return this.core.options.name;
  }

  /** @internal Opens this app on a stream for an `AgentApp` that connects to it in memory. */
  [OPEN_APP](stream: Stream): OpenedApp<ClientConnection<P>> {
    return this.core.open(stream);
  }

  /** Connects to an agent over `target` (a `Stream`, or a v2 `AgentApp` in memory); runs the `onConnect` handlers. */
  connect(target: Stream | ConnectableApp<"agent">): ClientConnection<P> {
    return this.core.connect(target).handle;
  }

  /** Connects (as `connect`), runs `op` with a context for calling the agent, then closes the connection. */
  connectWith<T>(
    target: Stream | ConnectableApp<"agent">,
    op: (context: ClientContext<P, Init<P>>) => MaybePromise<T>,
  ): Promise<T> {
    return connectWith(this.core, target, (handle) => op(handle.agent));
  }

  /** Registers a handler run when a connection opens. A handler that throws or rejects closes it. */
  onConnect(handler: ClientConnectHandler<P>): this {
    this.core.onConnect(handler);
    return this;
  }

  /** Registers a request handler (v2 methods typed by the schema; custom ones need a parser; `"*"` is the fallback). */
  onRequest(method: "*", handler: ClientRequestHandler<unknown, unknown, P>): this;
  onRequest<M extends ClientRequestMethod<P>>(method: M, handler: ClientRequestHandlersByMethod<P>[M]): this;
  onRequest<Params, Response>(
    method: V2ExtensionMethod,
    params: ParamsParser<Params>,
    handler: ClientRequestHandler<Params, Response, P>,
  ): this;
  onRequest<Params, Response, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params: ParamsParser<Params>,
    handler: ClientRequestHandler<Params, Response, P>,
  ): this;
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): this {
    if (handler !== undefined && method !== "*") assertNotBuiltIn(this.core.flavor, "client", "request", method);
    this.core.onRequest(method, parserOrHandler, handler);
    return this;
  }

  /**
   * Registers a notification handler. Handlers start in arrival order but are not awaited one after another: apply
   * a session's updates in order yourself (`ActiveSession` queues them in order).
   */
  onNotification(method: "*", handler: ClientNotificationHandler<unknown, P>): this;
  onNotification<M extends ClientNotificationMethod<P>>(
    method: M,
    handler: ClientNotificationHandlersByMethod<P>[M],
  ): this;
  onNotification<Params>(
    method: V2ExtensionMethod,
    params: ParamsParser<Params>,
    handler: ClientNotificationHandler<Params, P>,
  ): this;
  onNotification<Params, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params: ParamsParser<Params>,
    handler: ClientNotificationHandler<Params, P>,
  ): this;
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): this {
    if (handler !== undefined && method !== "*") assertNotBuiltIn(this.core.flavor, "client", "notification", method);
    this.core.onNotification(method, parserOrHandler, handler);
    return this;
  }
}

/** Creates a protocol v2 client app: register handlers, then `connectWith(agent, op)`. */
export function client(options?: V2AppOptions): ClientApp {
  return new ClientApp(options);
}
