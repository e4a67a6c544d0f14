/**
 * The protocol v2 (draft) agent API: `agent()` builds an `AgentApp` from handlers keyed by method name, as the
 * official SDK 2.4.0's `experimental/v2` entry does. Over the v1 app it adds v2's initialization lifecycle
 * (`initialize` required before anything else, repeatable before other requests, `initialized` snapshots), v2's
 * request-id rule, the default -32602 answers to `tool_call/cancel` and `terminal/cancel`, and direction checks.
 */
import { RequestError, type MaybePromise, type Stream } from "../../jsonrpc/index.js";
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
  isStream,
  OPEN_APP,
  type AppSide,
  type ConnectableApp,
  type OpenedApp,
} from "../../acp/connect.js";
import { APP_FLAVOR, type ProtocolFlavor } from "../../acp/flavor.js";
import type { ParamsParser } from "../../acp/routes.js";
import { agentAdmission, initializeParamsParser } from "../../acp/v2/admission.js";
import type { UnrecognizedMethod, V2AppOptions, V2ExtensionMethod, V2Protocol } from "../../acp/v2/app-types.js";
import { V2ConnectionHandle, v2ConnectionState, type V2ConnectionState } from "../../acp/v2/connection-state.js";
import { assertNotBuiltIn } from "../../acp/v2/direction.js";
import { InitializationState, type InitializationSnapshot } from "../../acp/v2/initialization.js";
import { v2Flavor } from "../../acp/v2-flavors.js";
import { AgentContext } from "./agent-context.js";

type Init<P extends ProtocolTypes> = InitializationSnapshot<
  RequestParamsOf<P["agentRequests"], "initialize">,
  RequestResultOf<P["agentRequests"], "initialize">
>;

/** Context of every v2 agent handler: the method, parsed params, a signal, and `client` to call back. */
export type AgentHandlerContext<Params, P extends ProtocolTypes = V2Protocol> = HandlerContextBase<Params> & {
  client: AgentContext<P, Init<P>>;
};
/** Context of a v2 agent request handler: adds `requestId`. */
export type AgentRequestContext<Params, P extends ProtocolTypes = V2Protocol> = AgentHandlerContext<Params, P> &
  RequestIdentity;
/** Context of a v2 agent notification handler. */
export type AgentNotificationContext<Params, P extends ProtocolTypes = V2Protocol> = AgentHandlerContext<Params, P>;
/** A request handler of a v2 `AgentApp`. A thrown `RequestError` is sent as is; other throws become -32603. */
export type AgentRequestHandler<Params, Response, P extends ProtocolTypes = V2Protocol> = (
  context: AgentRequestContext<Params, P>,
) => MaybePromise<Response>;
/** A notification handler of a v2 `AgentApp`. */
export type AgentNotificationHandler<Params, P extends ProtocolTypes = V2Protocol> = (
  context: AgentNotificationContext<Params, P>,
) => MaybePromise<void>;
/** A handler run when a v2 `AgentApp` opens a connection. */
export type AgentConnectHandler<P extends ProtocolTypes = V2Protocol> = (
  connection: AgentConnection<P>,
) => MaybePromise<void>;

/** The requests a v2 agent handles. */
export type AgentRequestMethod<P extends ProtocolTypes = V2Protocol> = MethodOf<P["agentRequests"]>;
/** The notifications a v2 agent handles. */
export type AgentNotificationMethod<P extends ProtocolTypes = V2Protocol> = MethodOf<P["agentNotifications"]>;
/** v2 agent request handlers by method; a result without required fields may be omitted (answered `{}`). */
export type AgentRequestHandlersByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in AgentRequestMethod<P>]: AgentRequestHandler<
    RequestParamsOf<P["agentRequests"], M>,
    HandlerResult<RequestResultOf<P["agentRequests"], M>>,
    P
  >;
};
/** v2 agent notification handlers by method. */
export type AgentNotificationHandlersByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in AgentNotificationMethod<P>]: AgentNotificationHandler<NotificationParamsOf<P["agentNotifications"], M>, P>;
};
/** Params of the requests a v2 agent handles, by method. */
export type AgentRequestParamsByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in AgentRequestMethod<P>]: RequestParamsOf<P["agentRequests"], M>;
};
/** Results of the requests a v2 agent handles, by method. */
export type AgentRequestResponsesByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in AgentRequestMethod<P>]: RequestResultOf<P["agentRequests"], M>;
};
/** Params of the notifications a v2 agent handles, by method. */
export type AgentNotificationParamsByMethod<P extends ProtocolTypes = V2Protocol> = {
  [M in AgentNotificationMethod<P>]: NotificationParamsOf<P["agentNotifications"], M>;
};

/** The agent's side of an open v2 connection. */
export interface AgentConnection<P extends ProtocolTypes = V2Protocol> extends AppConnection {
  /** Resolves with the validated `initialize` exchange once initialized (the latest after a repeat). */
  readonly initialized: Promise<Init<P>>;
  /** Context for calling the client. */
  readonly client: AgentContext<P, Init<P>>;
  /** Present when connected with `deferConnectHandlers`: runs the `onConnect` handlers (once). */
  startConnectHandlers?(): void;
}

class AgentConnectionHandle<P extends ProtocolTypes>
  extends V2ConnectionHandle<unknown, unknown>
  implements AgentConnection<P>
{
  readonly client: AgentContext<P, Init<P>>;

  constructor(state: V2ConnectionState) {
    super(state);
    this.client = new AgentContext<P, Init<P>>(state);
  }

  override get initialized(): Promise<Init<P>> {
    return super.initialized as Promise<Init<P>>;
  }
}

/** Entity-cancel methods a v2 agent answers -32602 to when it has no handler: nothing of the kind is cancellable. */
const ENTITY_CANCELS: ReadonlyArray<{ method: string; key: string; label: string }> = [
  { method: "tool_call/cancel", key: "toolCallId", label: "tool call" },
  { method: "terminal/cancel", key: "terminalId", label: "terminal" },
];

function agentSide<P extends ProtocolTypes>(flavor: ProtocolFlavor): AppSide<V2ConnectionState, AgentConnection<P>> {
  return {
    side: "agent",
    connectionSettings: () => ({ admission: agentAdmission(new InitializationState(), flavor.schemas) }),
    createState: (acp: AcpConnection) => v2ConnectionState(acp),
    createHandle: (state) => new AgentConnectionHandle<P>(state),
    requestContext: (state, params, request, method) => ({
      method,
      params,
      requestId: request.id,
      get signal() {
        return request.signal;
      },
      client: new AgentContext(state, request.id),
    }),
    notificationContext: (state, params, method) => ({
      method,
      params,
      signal: state.acp.signal,
      client: new AgentContext(state),
    }),
    configure: (state) => {
      const { acp, init } = state;
      const routes = acp.routes;
      const initialize = routes.requests.get("initialize");
      if (initialize)
        routes.onRequest("initialize", {
          handler: initialize.handler,
          parse: initializeParamsParser(flavor.schemas, init),
        });
      if (routes.fallbackRequest) return;
      for (const { method, key, label } of ENTITY_CANCELS) {
        if (routes.requests.has(method)) continue;
        routes.onRequest(method, {
          parse: (params) => params,
          handler: (params) => {
            const id = (params as Record<string, unknown> | null)?.[key];
            throw RequestError.invalidParams(
              typeof id === "string" ? { [key]: id } : undefined,
              `the ${label} is unknown or not cancellable`,
            );
          },
        });
      }
    },
  };
}

/**
 * A protocol v2 agent built from handlers keyed by method name. Each `on...` returns `this` for chaining.
 *
 * Needs an `initialize` handler before it connects. Params are validated by v2's schema before a handler runs;
 * results are checked before they are sent (reported, or refused with `validateOutgoing: "strict"`).
 */
export class AgentApp<P extends ProtocolTypes = V2Protocol> implements ConnectableApp<"agent"> {
  readonly [APP_SIDE] = "agent" as const;
  private readonly core: AppCore<V2ConnectionState, AgentConnection<P>>;

  constructor(options: V2AppOptions = {}) {
    const flavor = (options as { [APP_FLAVOR]?: ProtocolFlavor })[APP_FLAVOR] ?? v2Flavor;
    this.core = new AppCore(agentSide<P>(flavor), { ...options, [APP_FLAVOR]: flavor } as V2AppOptions);
  }

  /** The name given in the options. */
  get name(): string | undefined {
    return this.core.options.name;
  }

  /** @internal Opens this app on a stream for a `ClientApp` that connects to it in memory. */
  [OPEN_APP](stream: Stream): OpenedApp<AgentConnection<P>> {
    this.assertInitializeHandler();
    return this.core.open(stream);
  }

  /**
   * Serves a client over `target` (a `Stream`, or a v2 `ClientApp` in memory). Runs the `onConnect` handlers before
   * the first message is handled, or, with `deferConnectHandlers` (what a router or remote server passes), when
   * the returned handle's `startConnectHandlers()` is called. Throws without an `initialize` handler.
   */
  connect(
    target: Stream | ConnectableApp<"client">,
    options: { deferConnectHandlers?: boolean } = {},
  ): AgentConnection<P> {
    this.assertInitializeHandler();
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

  /** Connects (as `connect`), runs `op` with a context for calling the client, then closes the connection. */
  connectWith<T>(
    target: Stream | ConnectableApp<"client">,
    op: (context: AgentContext<P, Init<P>>) => MaybePromise<T>,
  ): Promise<T> {
    try {
      this.assertInitializeHandler();
    } catch (error) {
      return Promise.reject(error);
    }
    return connectWith(this.core, target, (handle) => op(handle.client));
  }

  /** Registers a handler run when a connection opens (see `connect`). A handler that throws or rejects closes it. */
  onConnect(handler: AgentConnectHandler<P>): this {
    this.core.onConnect(handler);
    return this;
  }

  /**
   * Registers a request handler. v2 methods infer their types (their parser is the schema's, which cannot be
   * replaced); custom methods need a parser; `"*"` (raw params) handles requests with no handler.
   */
  onRequest(method: "*", handler: AgentRequestHandler<unknown, unknown, P>): this;
  onRequest<M extends AgentRequestMethod<P>>(method: M, handler: AgentRequestHandlersByMethod<P>[M]): this;
  onRequest<Params, Response>(
    method: V2ExtensionMethod,
    params: ParamsParser<Params>,
    handler: AgentRequestHandler<Params, Response, P>,
  ): this;
  onRequest<Params, Response, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params: ParamsParser<Params>,
    handler: AgentRequestHandler<Params, Response, P>,
  ): this;
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): this {
    if (handler !== undefined && method !== "*") assertNotBuiltIn(this.core.flavor, "agent", "request", method);
    this.core.onRequest(method, parserOrHandler, handler);
    return this;
  }

  /** Registers a notification handler, with the same shapes as `onRequest`. Handlers start in arrival order. */
  onNotification(method: "*", handler: AgentNotificationHandler<unknown, P>): this;
  onNotification<M extends AgentNotificationMethod<P>>(
    method: M,
    handler: AgentNotificationHandlersByMethod<P>[M],
  ): this;
  onNotification<Params>(
    method: V2ExtensionMethod,
    params: ParamsParser<Params>,
    handler: AgentNotificationHandler<Params, P>,
  ): this;
  onNotification<Params, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params: ParamsParser<Params>,
    handler: AgentNotificationHandler<Params, P>,
  ): this;
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): this {
    if (handler !== undefined && method !== "*") assertNotBuiltIn(this.core.flavor, "agent", "notification", method);
    this.core.onNotification(method, parserOrHandler, handler);
    return this;
  }

  private assertInitializeHandler(): void {
    if (!this.core.hasRequestHandler("initialize")) {
      throw new Error(
        'AgentApp requires an initialize request handler before connecting (onRequest("initialize", ...)).',
      );
    }
  }
}

/** Creates a protocol v2 agent app: register handlers (`initialize` first), then `connect(stream)`. */
export function agent(options?: V2AppOptions): AgentApp {
  return new AgentApp(options);
}
