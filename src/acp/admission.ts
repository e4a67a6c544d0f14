/**
 * Admission: rules a protocol version applies to incoming messages before they are dispatched, and to the
 * `initialize` exchange around its handler. Protocol v1 has none (the 2.x agent app's simple gate aside); protocol
 * v2's initialization lifecycle (./v2/) is one. `AcpConnection` consults it when set.
 */
import type { JsonRpcId } from "../jsonrpc/index.js";

export interface Admission {
  /**
   * An incoming request, before it is dispatched. Throw a `RequestError` to answer it with that error; return a
   * promise to hold it until the promise settles (a rejection answers it with the rejection).
   */
  request(method: string, id: JsonRpcId): void | Promise<void>;
  /** An incoming notification: whether to handle it (false ignores it), or a promise of that. */
  notification(method: string): boolean | Promise<boolean>;
  /**
   * Agent side: this side's `initialize` handler returned `result` for the parsed `params`, about to be sent. Throw
   * a `RequestError` to answer with it instead.
   */
  initializeAnswered?(params: unknown, result: unknown): void;
  /** Agent side: this side's `initialize` handler failed (or its params did not parse). */
  initializeFailed?(error: unknown): void;
  /**
   * Client side: the peer's parsed `initialize` result, as it arrives (before anything after it is dispatched).
   * Throw a `LocalError` to reject the call with it.
   */
  initializeResult?(result: unknown): void;
}
