import type { SendRequestOptions, TapListener } from "../jsonrpc/index.js";
import type { AcpConnection } from "./acp-connection.js";

/**
 * What both 1.x classes (`AgentSideConnection`, `ClientSideConnection`) offer beyond their typed methods: free-form
 * requests and notifications (extension methods included), the peer's capabilities, the tap, and the connection's
 * lifetime. A thin face over the `AcpConnection` that does the work.
 */
export abstract class ClassFace {
  /** The ACP core under this face: tap, peer capabilities, routes. */
  abstract readonly connection: AcpConnection;

  /** Sends any request: typed for protocol methods, free-form for extension methods. */
  request<Response = unknown>(method: string, params?: unknown, options?: SendRequestOptions): Promise<Response> {
    return this.connection.request<Response>(method, params, options);
  }

  /** Sends any notification. */
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
