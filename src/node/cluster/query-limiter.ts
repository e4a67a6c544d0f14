/**
 * A bound on the queries one kind of work has in flight on a shared pool: the stream readers of a node wake by the
 * hundred when their connections stream at once, and unbounded they would take every client of the pool, so that the
 * owners' writes (and the connection lookups of requests) waited behind them past the pool's timeout. Waiters run in
 * arrival order.
 */
export class QueryLimiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /** Runs `work` once fewer than `limit` are running. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#active--;
    }
  }
}
