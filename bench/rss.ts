/**
 * Resident-set-size sampling, used in the child agents and in the orchestrator.
 */

/** Runs a full garbage collection when node was started with --expose-gc (the bench always is). */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

export function rssNow(): number {
  return process.memoryUsage.rss();
}

/** Lifetime high-water mark of this process's RSS in bytes (`process.resourceUsage().maxRSS` is in KiB). */
export function maxRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * Samples RSS every `intervalMs` (20 ms by default) and keeps the peak since the last `reset()`. Samples can only
 * be taken when the event loop turns, so code that may hold the loop should also call `sample()` itself.
 */
export class RssSampler {
  peak = 0;
  lifetimePeak = 0;
  samples = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs = 20) {}

  start(): this {
    if (!this.timer) {
      this.timer = setInterval(() => this.sample(), this.intervalMs);
      this.timer.unref();
    }
    this.sample();
    return this;
  }

  sample(): number {
    const rss = rssNow();
    this.samples++;
    if (rss > this.peak) this.peak = rss;
    if (rss > this.lifetimePeak) this.lifetimePeak = rss;
    return rss;
  }

  /** Starts a new window; returns the current RSS, which is also the new window's peak so far. */
  reset(): number {
    this.peak = 0;
    return this.sample();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
