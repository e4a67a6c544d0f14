/**
 * Where a connection's agent output goes, whichever the transport: the HTTP streams (one connection-scoped, one per
 * session) or one WebSocket. Both keep the same contract so the connection routes without knowing which it has.
 */

/** A client or agent went past a limit; the connection is closed with this as the reason. */
export class ConnectionLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionLimitError";
  }
}

/** The contract of a connection's output. */
export interface OutputSink {
  /**
   * Queues one agent message's JSON text for the client: on `sessionId`'s stream when given, else on the
   * connection's (WebSocket: the socket, whatever the route). Throws `ConnectionLimitError` when that would go past
   * a limit (the connection then closes).
   */
  deliver(text: string, sessionId: string | undefined): void;
  /** True while the client is behind by `maxBufferedBytes` or more. */
  readonly backlogged: boolean;
  /** How far the client is behind: queued UTF-16 units (HTTP) or unsent bytes (WebSocket). */
  readonly bufferedAmount: number;
  /** Resolves once not backlogged (a sink may also pace: wait below that, for a drain), or once finished or aborted. */
  whenRoom(): Promise<void>;
  /**
   * No more output (the agent ended, or the server is closing): deliver what is queued to readers that are there,
   * then end. A WebSocket closes with `code` and `reason` after its queued frames.
   */
  finish(code?: number, reason?: string): void;
  /** The connection is gone: drop what is queued and end now (a WebSocket closes with `code` and `reason`). */
  abort(code?: number, reason?: string): void;
}

/** Resolves a set of waiters once. */
export class Waiters {
  #waiters: (() => void)[] = [];

  get size(): number {
    return this.#waiters.length;
  }

  wait(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  wakeAll(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
