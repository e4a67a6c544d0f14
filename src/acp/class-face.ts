import type { SendRequestOptions, TapListener } from "../jsonrpc/index.js";
import type { AcpConnection } from "./acp-connection.js";
import { ACP_CONNECTION } from "./connect.js";
import type { MethodOf, NotificationParamsOf, RequestParamsOf, RequestResultOf } from "./app-types.js";

/**
 * What both 1.x classes (`AgentSideConnection`, `ClientSideConnection`) offer beyond their typed methods: free-form
 * requests and notifications (extension methods included), the peer's capabilities, the tap, and the connection's
 * lifetime. A thin face over the `AcpConnection` that does the work.
 *
 * `Requests` / `Notifications` are the method maps of what this side sends (the peer's methods): `request` and
 * `notify` are typed for those, as in 1.9.0, and take any other method name untyped.
 */
export abstract class ClassFace<Requests = Record<never, never>, Notifications = Record<never, never>> {
  /** The ACP core under this face: tap, peer capabilities, routes. */
  abstract readonly connection: AcpConnection;

  /**
   * The connection behind this face, as app contexts give it (so the MCP-over-ACP helpers take a 1.x connection too).
   */
  get [ACP_CONNECTION](): AcpConnection {
    return this.connection;
  }

  /** Sends any request: typed for protocol methods, free-form for extension methods. */
  request<Method extends MethodOf<Requests>>(
    method: Method,
    params: RequestParamsOf<Requests, Method>,
    options?: SendRequestOptions,
  ): Promise<RequestResultOf<Requests, Method>>;
  request<Response = unknown, Params = unknown>(
    method: string,
    params?: Params,
    options?: SendRequestOptions,
  ): Promise<Response>;
  request(method: string, params?: unknown, options?: SendRequestOptions): Promise<unknown> {
    return this.connection.request(method, params, options);
  }

  /** Sends any notification: typed for protocol methods, free-form for extension methods. */
  notify<Method extends MethodOf<Notifications>>(
    method: Method,
    params: NotificationParamsOf<Notifications, Method>,
  ): Promise<void>;
  notify<Params = unknown>(method: string, params?: Params): Promise<void>;
  notify(method: string, params?: unknown): Promise<void> {
    return this.connection.notify(method, params);
  }

  /** Sends an extension request (`_vendor/method`). */
  extMethod(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.connection.request(method, params);
  }

  /** Sends an extension notification. */
  extNotification(method: string, params: Record<string, unknown>): Promise<void> {
    return this.connection.notify(method, params);
  }

  /** Whether the peer advertised what `method` needs (false for gated methods before `initialize`). */
  peerSupports(method: string): boolean {
    return this.connection.peerSupports(method);
  }

  /** Sees every message in both directions; returns a function that stops it. */
  tap(listener: TapListener): () => void {
    return this.connection.tap(listener);
  }

  /** Closes the connection: pending requests reject with a `ConnectionClosedError` carrying `reason`. */
  close(reason?: unknown): void {
    this.connection.close(reason);
  }

  /** Aborted when the connection closes. */
  get signal(): AbortSignal {
    return this.connection.signal;
  }

  /** Resolves when the connection has closed. */
  get closed(): Promise<void> {
    return this.connection.closed;
  }
}
