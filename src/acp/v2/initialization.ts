/**
 * The initialization lifecycle of one protocol v2 connection side, as the v2 draft and the official SDK 2.4.0 define
 * it:
 * - Nothing but `initialize` is served before an `initialize` exchange completed (other requests: -32600).
 * - The client may repeat `initialize` after one completed, as long as it has sent no other request; the latest
 *   successful exchange is authoritative. A repeat that fails leaves the previous one in effect.
 * - A first `initialize` answered with an error leaves the connection uninitialized: it may be sent again.
 * - A connection that closes before it was initialized fails for good.
 *
 * Spec: https://agentclientprotocol.com/protocol/v2/initialization
 */
import { RequestError } from "../../jsonrpc/index.js";

/** The validated `initialize` request and response of a v2 connection, once initialized. */
export type InitializationSnapshot<Request = unknown, Response = unknown> = Readonly<{
  request: Request;
  response: Response;
}>;

export type InitializationPhase = "uninitialized" | "initializing" | "initialized" | "failed";

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Why a message cannot be served before initialization (the official SDK's words). */
export function notInitialized(method: string): RequestError {
  return RequestError.invalidRequest(undefined, `ACP v2 connection must be initialized before '${method}'`);
}

export class InitializationState<Request = unknown, Response = unknown> {
  private phaseNow: InitializationPhase = "uninitialized";
  private pendingRequest: Request | undefined;
  private snapshot: InitializationSnapshot<Request, Response> | undefined;
  private otherRequestSeen = false;
  /** Settles when the attempt in progress (if any) ended, either way. */
  private attempt: Deferred<void> = deferred();
  /** Run synchronously, in order, when the attempt in progress ends (`whenAttemptEnds`). */
  private atAttemptEnd: Array<() => void> = [];
  /** Resolves with the first successful exchange; rejects when the connection fails before one. */
  private readonly barrier: Deferred<InitializationSnapshot<Request, Response>> = deferred();

  constructor() {
    this.barrier.promise.catch(() => undefined);
    this.attempt.resolve();
  }

  get phase(): InitializationPhase {
    return this.phaseNow;
  }

  /** Whether an exchange completed (also while a repeat is in progress). */
  get hasInitialized(): boolean {
    return this.snapshot !== undefined && this.phaseNow !== "failed";
  }

  /** The latest successful exchange, once there is one (a copy); rejects if the connection failed before. */
  get initialized(): Promise<InitializationSnapshot<Request, Response>> {
    return this.barrier.promise.then(() => this.attempt.promise).then(() => structuredClone(this.snapshot!));
  }

  /** Why `initialize` cannot start now, if it cannot. */
  beginError(): RequestError | undefined {
    if (this.phaseNow === "initializing")
      return RequestError.invalidRequest(undefined, "ACP v2 initialize is already in progress");
    if (this.phaseNow === "failed")
      return RequestError.invalidRequest(undefined, "ACP v2 connection initialization failed");
    if (this.phaseNow === "initialized" && this.otherRequestSeen) {
      return RequestError.invalidRequest(undefined, "ACP v2 initialize must not be repeated after other requests");
    }
    return undefined;
  }

  /** Starts an attempt with the (validated) request; throws the `beginError` when it cannot start. */
  begin(request: Request): void {
    const error = this.beginError();
    if (error) throw error;
    this.pendingRequest = structuredClone(request);
    this.phaseNow = "initializing";
    this.attempt = deferred();
  }

  /** The attempt succeeded with `response`. */
  complete(response: Response): void {
    if (this.phaseNow !== "initializing" || this.pendingRequest === undefined) return;
    this.snapshot = { request: this.pendingRequest, response: structuredClone(response) };
    this.pendingRequest = undefined;
    this.phaseNow = "initialized";
    this.barrier.resolve(this.snapshot);
    this.endAttempt();
  }

  /** The attempt failed with an error answer: the previous exchange (if any) stays in effect. */
  failAttempt(): void {
    if (this.phaseNow !== "initializing") return;
    this.phaseNow = this.snapshot ? "initialized" : "uninitialized";
    this.pendingRequest = undefined;
    this.endAttempt();
  }

  /** Fails for good (the connection closed before it was initialized). A failing repeat keeps the previous exchange. */
  fail(error: unknown): void {
    if (this.phaseNow === "initializing" && this.snapshot) {
      this.failAttempt();
      return;
    }
    if (this.phaseNow === "uninitialized" || this.phaseNow === "initializing") {
      this.phaseNow = "failed";
      this.pendingRequest = undefined;
      this.barrier.reject(error ?? RequestError.invalidRequest(undefined, "ACP v2 connection initialization failed"));
      this.endAttempt();
    }
  }

  /**
   * Runs `callback` synchronously when the attempt in progress ends (completed, failed, or the connection failed),
   * after the phase changed, in registration order; at once when no attempt is in progress. What holds messages
   * during an attempt releases them through it, so that they are dispatched in arrival order, before anything after
   * the message that ended the attempt.
   */
  whenAttemptEnds(callback: () => void): void {
    if (this.phaseNow !== "initializing") callback();
    else this.atAttemptEnd.push(callback);
  }

  private endAttempt(): void {
    this.attempt.resolve();
    const callbacks = this.atAttemptEnd;
    this.atAttemptEnd = [];
    for (const callback of callbacks) callback();
  }

  /** A request other than `initialize` was sent or received: `initialize` may no longer be repeated. */
  noteRequest(): void {
    if (this.phaseNow === "initializing" || this.phaseNow === "initialized") this.otherRequestSeen = true;
  }

  /**
   * Resolves once initialized: at once when it is; after the attempt in progress when one is (rejecting if it failed
   * and left the connection uninitialized); rejects at once when nothing was attempted, or with the failure.
   */
  waitUntilInitialized(method: string): Promise<void> {
    if (this.phaseNow === "initialized") return Promise.resolve();
    if (this.phaseNow === "initializing") return this.attempt.promise.then(() => this.waitUntilInitialized(method));
    if (this.phaseNow === "failed") return this.barrier.promise.then(() => undefined);
    return Promise.reject(notInitialized(method));
  }

  /**
   * Runs `send` once initialized and settles with what it returns: at once when initialized; when an attempt is in
   * progress, synchronously as it completes, so that calls made meanwhile go out in the order they were made and
   * before any made after it (the client's calls: they go out as the `initialize` response is read). Refuses with
   * -32600 naming `method` when nothing was attempted or the attempt left it uninitialized, and with the failure when
   * the connection failed first.
   */
  whenInitialized<T>(method: string, send: () => T | PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const settle = (): void => {
        if (this.phaseNow === "initialized") {
          try {
            resolve(send());
          } catch (error) {
            reject(error);
          }
        } else if (this.phaseNow === "failed") {
          this.barrier.promise.then(undefined, reject);
        } else {
          reject(notInitialized(method));
        }
      };
      this.whenAttemptEnds(settle);
    });
  }

  /** Fails the state when `signal` aborts (the connection closed). */
  followClose(signal: AbortSignal): void {
    if (signal.aborted) this.fail(signal.reason);
    else signal.addEventListener("abort", () => this.fail(signal.reason), { once: true });
  }
}
