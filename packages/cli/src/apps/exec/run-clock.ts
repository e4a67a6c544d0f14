/**
 * The bounds of an `acp exec` run: `--startup-timeout` (from the agent's start until its session is ready) and
 * `--timeout` (the whole run). Every wait of the run is under one of them; what the agent left unanswered when a
 * bound ran out is named in the message (see `UnansweredRequests`).
 */
import type { TapEvent } from "@acpkit/sdk";

/** A bound ran out while waiting on the agent. */
export class BoundExceededError extends Error {
  override readonly name = "BoundExceededError";
}

/** Seconds for messages: `30 s`, `0.5 s`. */
export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The run's clock: both bounds, from one start. */
export class RunClock {
  readonly #startedAt = Date.now();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    /** The whole run's bound, in ms (`--timeout`). */
    readonly totalMs: number,
    /** The startup bound, in ms (`--startup-timeout`), never more than the whole run's. */
    readonly startupMs: number,
  ) {}

  /** Ms left of the whole run. */
  totalLeft(): number {
    return Math.max(0, this.totalMs - (Date.now() - this.#startedAt));
  }

  /** Ms left of the startup phase. */
  startupLeft(): number {
    return Math.max(0, Math.min(this.startupMs, this.totalMs) - (Date.now() - this.#startedAt));
  }

  /**
   * Waits for `promise`, or rejects with a `BoundExceededError` carrying `message()` once the startup bound ran out.
   */
  withinStartup<T>(promise: Promise<T>, message: () => string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = this.#after(this.startupLeft(), () => {
        promise.catch(() => {});
        reject(new BoundExceededError(message()));
      });
      promise.then(
        (value) => {
          this.#clear(timer);
          resolve(value);
        },
        (error: unknown) => {
          this.#clear(timer);
          reject(error);
        },
      );
    });
  }

  /** Calls `callback` once the whole run's bound runs out (unless disposed first). */
  onTotal(callback: () => void): void {
    this.#after(this.totalLeft(), callback);
  }

  /** Clears every timer. */
  dispose(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #after(ms: number, callback: () => void): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      callback();
    }, ms);
    this.#timers.add(timer);
    return timer;
  }

  #clear(timer: ReturnType<typeof setTimeout>): void {
    clearTimeout(timer);
    this.#timers.delete(timer);
  }
}

/** The requests sent to the agent that it has not answered yet, from the connection's tap. */
export class UnansweredRequests {
  readonly #methods = new Map<unknown, string>();

  /** A tap listener: add it with `connection.tap(...)`. */
  readonly listener = (event: TapEvent): void => {
    if (!("message" in event)) return;
    const message = event.message as { id?: unknown; method?: unknown } | null;
    if (message === null || typeof message !== "object" || !("id" in message)) return;
    if (event.direction === "out" && typeof message.method === "string") this.#methods.set(message.id, message.method);
    else if (event.direction === "in" && message.method === undefined) this.#methods.delete(message.id);
  };

  /** `session/new`, or `session/new and authenticate`: what is still waiting, oldest first; "" when nothing. */
  describe(): string {
    const methods = [...new Set(this.#methods.values())];
    return methods.length <= 1 ? (methods[0] ?? "") : `${methods.slice(0, -1).join(", ")} and ${methods.at(-1)}`;
  }
}
