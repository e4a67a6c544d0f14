/**
 * Admission: rules a protocol version applies to incoming messages before they are dispatched, and to the
 * `initialize` exchange around its handler. Protocol v1 has none (the 2.x agent app's simple gate aside); protocol
 * v2's initialization lifecycle (./v2/) is one. `AcpConnection` consults it when set.
 */
import type { JsonRpcId } from "../jsonrpc/index.js";

/**
 * A message held until a lifecycle step ends: `then` registers what to do when it does (a promise is one). An
 * admission that calls the callbacks synchronously, in the order they were registered, at the step's end (as v2's
 * does) keeps held messages in arrival order with everything after them: they are dispatched before the message
 * that ended the step is done with, and so before anything that arrives later.
 */
export interface Held<T> {
  then(onRelease: (value: T) => unknown, onRefuse: (error: unknown) => unknown): unknown;
}

export interface Admission {
  /**
   * An incoming request, before it is dispatched. Throw a `RequestError` to answer it with that error; return a
   * hold to keep it until the hold ends (a refusal answers it with the refusal's error).
   */
  request(method: string, id: JsonRpcId): void | Held<void>;
  /** An incoming notification: whether to handle it (false ignores it), or a hold that decides later. */
  notification(method: string): boolean | Held<boolean>;
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

/**
 * Runs `dispatch` when `held` releases (synchronously, if the hold calls back synchronously) and settles the
 * returned promise with what it returns or throws, or with the hold's refusal: a handler's failure never escapes
 * into whatever ended the hold.
 */
export function whenReleased<T, R>(held: Held<T>, dispatch: (value: T) => R): Promise<Awaited<R>> {
  return new Promise<Awaited<R>>((resolve, reject) => {
    held.then((value) => {
      try {
        resolve(dispatch(value) as Awaited<R>);
      } catch (error) {
        reject(error);
      }
    }, reject);
  });
}
