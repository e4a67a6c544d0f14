/**
 * `LinkLifecycle`: the start and the end every acpkit `MessageLink` shares, in one place, so that each link class
 * only says what it releases when its input ends.
 *
 * Contracts:
 * - `start(receiver)` binds the one receiver; a second call throws (a link delivers to one receiver).
 * - The incoming side finishes once (`finish` or `finishLater`), with a cause (`undefined` for a clean end). The
 *   link's `release(cause)` runs then, exactly once, before the receiver hears of it.
 * - `receiver.closed(cause)` is delivered exactly once, after `start` (a link that finished before it was started
 *   delivers it in a microtask after `start`): `finish` delivers it synchronously (the end came from below: input
 *   ended, a write failed), `finishLater` in a microtask (the end was asked for by the link's user through
 *   `close()` or `stopInput()`, which must never call back into the engine reentrantly).
 * - `close(run)` runs the link's closing once: every call returns the promise of the first.
 */
import type { LinkReceiver } from "../jsonrpc/link.js";

function nothing(): void {}

export class LinkLifecycle {
  readonly #release: (cause: unknown) => void;
  #receiver: LinkReceiver | undefined;
  #finished = false;
  #cause: unknown;
  #closedDelivered = false;
  #closing: Promise<void> | undefined;

  /** `release` frees what the link holds for its input when it finishes (stop reading, drop buffers). */
  constructor(release: (cause: unknown) => void = nothing) {
    this.#release = release;
  }

  /** The receiver, once started. */
  get receiver(): LinkReceiver | undefined {
    return this.#receiver;
  }

  /** True once the incoming side is over (nothing more is delivered). */
  get finished(): boolean {
    return this.#finished;
  }

  /** Why the incoming side finished: `undefined` for a clean end. */
  get cause(): unknown {
    return this.#cause;
  }

  /** True once `close()` was called. */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Binds the receiver. True when the link should start delivering; false when it already finished (`closed()`
   * then follows in a microtask). Throws when the link was already started.
   */
  start(receiver: LinkReceiver): boolean {
    if (this.#receiver) throw new Error("This link was already started: a MessageLink delivers to one receiver.");
    this.#receiver = receiver;
    if (!this.#finished) return true;
    queueMicrotask(this.#deliverClosed);
    return false;
  }

  /** Ends the incoming side (once): releases it, then tells the receiver now. */
  finish(cause: unknown): void {
    if (this.#end(cause)) this.#deliverClosed();
  }

  /** Ends the incoming side (once): releases it now, tells the receiver in a microtask (never reentrantly). */
  finishLater(cause: unknown): void {
    if (this.#end(cause)) queueMicrotask(this.#deliverClosed);
  }

  /** Runs `run` on the first call only; every call returns its promise. */
  close(run: () => Promise<void>): Promise<void> {
    this.#closing ??= run();
    return this.#closing;
  }

  /** True when this call finished the link and a receiver waits to hear it. */
  #end(cause: unknown): boolean {
    if (this.#finished) return false;
    this.#finished = true;
    this.#cause = cause;
    this.#release(cause);
    return this.#receiver !== undefined; // otherwise start() delivers it
  }

  readonly #deliverClosed = (): void => {
    if (this.#closedDelivered) return;
    this.#closedDelivered = true;
    this.#receiver!.closed(this.#cause);
  };
}
