/**
 * The log of refused requests (wrong token, foreign Host or Origin, bad path): each says who was refused (the remote
 * address, where the transport gives one), and a flood of them cannot flood the log. In each window (`windowMs`,
 * 60 s) the first `burst` (20) refusals are logged one by one; the rest are counted and said in one line when the
 * window ends: how many, by status, and the addresses that sent the most. Someone guessing tokens is seen, with
 * where from, at the cost of a few lines a minute.
 */
import type { Logger } from "../../jsonrpc/logger.js";

/** Options of a `RefusalLog` (defaults: 20 lines per 60 s). */
export interface RefusalLogOptions {
  readonly burst?: number;
  readonly windowMs?: number;
}

/** Addresses named in a summary line, the busiest first. */
const SUMMARY_ADDRESSES = 5;

export class RefusalLog {
  readonly #logger: Logger;
  readonly #burst: number;
  readonly #windowMs: number;
  #windowStart = 0;
  #logged = 0;
  #unlogged = 0;
  readonly #byStatus = new Map<number, number>();
  readonly #byAddress = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(logger: Logger, options: RefusalLogOptions = {}) {
    this.#logger = logger;
    this.#burst = options.burst ?? 20;
    this.#windowMs = options.windowMs ?? 60_000;
  }

  /** A request was refused with `status` for `reason`, from `remoteAddress` when known. */
  refused(status: number, reason: string, remoteAddress: string | undefined): void {
    const now = Date.now();
    if (now - this.#windowStart >= this.#windowMs) {
      this.#summarize();
      this.#windowStart = now;
      this.#logged = 0;
    }
    if (this.#logged < this.#burst) {
      this.#logged++;
      this.#logger.warn("refused a remote request", {
        status,
        reason,
        ...(remoteAddress === undefined ? {} : { remoteAddress }),
      });
      return;
    }
    this.#unlogged++;
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
    const address = remoteAddress ?? "unknown";
    this.#byAddress.set(address, (this.#byAddress.get(address) ?? 0) + 1);
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#summarize(), this.#windowStart + this.#windowMs - now);
      this.#timer.unref?.();
    }
  }

  /** Says what was counted and not logged, if anything; stops the timer. */
  flush(): void {
    this.#summarize();
  }

  #summarize(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#unlogged === 0) return;
    const busiest = [...this.#byAddress].sort((a, b) => b[1] - a[1]).slice(0, SUMMARY_ADDRESSES);
    this.#logger.warn(
      `refused ${this.#unlogged} more remote requests within ${Math.round(this.#windowMs / 1000)} s, not logged ` +
        `one by one`,
      {
        byStatus: Object.fromEntries(this.#byStatus),
        addresses: this.#byAddress.size,
        busiest: Object.fromEntries(busiest),
      },
    );
    this.#unlogged = 0;
    this.#byStatus.clear();
    this.#byAddress.clear();
  }
}
