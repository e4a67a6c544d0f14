/**
 * What protocol v2 agent handlers use to call the client: typed `request` and `notify` by method name. Calls wait
 * until the connection is initialized, also when made before any `initialize` arrived (a context from `connect()`
 * or `onConnect` may be used right away), and reject if the connection closes first; a v2 method sent the wrong way
 * throws a `TypeError`. (The official SDK 2.4.0 documents this too, but rejects calls made before an `initialize`
 * arrived with -32600.)
 */
import type { JsonRpcId, SendRequestOptions } from "../../jsonrpc/index.js";
import { handled } from "../../jsonrpc/handled.js";
import { ACP_CONNECTION } from "../../acp/connect.js";
import type { AcpConnection } from "../../acp/acp-connection.js";
import type {
  MethodOf,
  NotificationParamsOf,
  ProtocolTypes,
  RequestParamsOf,
  RequestResultOf,
} from "../../acp/app-types.js";
import type { UnrecognizedMethod, V2ExtensionMethod, V2Protocol } from "../../acp/v2/app-types.js";
import type { V2ConnectionState } from "../../acp/v2/connection-state.js";
import { assertOutgoingDirection } from "../../acp/v2/direction.js";

type ClientRequests<P extends ProtocolTypes> = P["clientRequests"];
type ClientNotifications<P extends ProtocolTypes> = P["clientNotifications"];

export class AgentContext<P extends ProtocolTypes = V2Protocol, Init = unknown> {
  /** @internal Contexts come from the app: handler contexts, `connect().client`, `connectWith`. */
  constructor(
    private readonly state: V2ConnectionState,
    private readonly currentRequestId?: JsonRpcId,
  ) {}

  /** The validated `initialize` exchange, once the connection is initialized. */
  get initialized(): Promise<Init> {
    return this.state.init.initialized as Promise<Init>;
  }

  /** JSON-RPC id of the request being handled; undefined in notification handlers and outside handlers. */
  get requestId(): JsonRpcId | undefined {
    return this.currentRequestId;
  }

  /** The connection behind this context (for acpkit toolkits). */
  get [ACP_CONNECTION](): AcpConnection {
    return this.state.acp;
  }

  /** Sends a request to the client, once the connection is initialized. Table methods are typed and checked. */
  request<M extends MethodOf<ClientRequests<P>>>(
    method: M,
    params: RequestParamsOf<ClientRequests<P>, M>,
    options?: SendRequestOptions,
  ): Promise<RequestResultOf<ClientRequests<P>, M>>;
  request<Response = unknown, Params = unknown>(
    method: V2ExtensionMethod,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request<Response = unknown, Params = unknown, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    assertOutgoingDirection(this.state.acp.flavor, "agent", "request", method);
    const { acp, init } = this.state;
    if (init.phase === "initialized") return acp.request(method, params, options);
    return handled(init.initialized.then(() => acp.request(method, params, options)));
  }

  /** Sends a notification to the client, once the connection is initialized. */
  notify<M extends MethodOf<ClientNotifications<P>>>(
    method: M,
    params: NotificationParamsOf<ClientNotifications<P>, M>,
  ): Promise<void>;
  notify(method: "$/cancel_request", params: { requestId: JsonRpcId }): Promise<void>;
  notify<Params = unknown>(method: V2ExtensionMethod, params?: Params): Promise<void>;
  notify<Params = unknown, const M extends string = never>(
    method: UnrecognizedMethod<M, P>,
    params?: Params,
  ): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    assertOutgoingDirection(this.state.acp.flavor, "agent", "notification", method);
    const { acp, init } = this.state;
    // The hot path (streaming updates) sends at once; only a connection not yet initialized waits.
    if (init.phase === "initialized") return acp.notify(method, params);
    return handled(init.initialized.then(() => acp.notify(method, params)));
  }
}
