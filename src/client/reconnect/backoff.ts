/**
 * Reconnect delays: exponential backoff with jitter, bounded attempts.
 */

/** How a reconnecting link paces its attempts. */
export interface BackoffOptions {
  /** Attempts before giving up. Default 5. */
  maxAttempts?: number;
  /** Delay before the first attempt, in ms. Default 250. */
  initialDelayMs?: number;
  /** Longest delay between attempts, in ms. Default 10000. */
  maxDelayMs?: number;
  /** Growth of the delay per attempt. Default 2. */
  factor?: number;
  /** The source of jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/**
 * The delay before attempt `attempt` (from 1): `initialDelayMs * factor^(attempt-1)`, capped at `maxDelayMs`,
 * then jittered into its upper half ("equal jitter"), so many clients dropped at once do not return at once.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const initial = options.initialDelayMs ?? 250;
  const max = options.maxDelayMs ?? 10_000;
  const factor = options.factor ?? 2;
  const base = Math.min(max, initial * factor ** Math.max(0, attempt - 1));
  const random = (options.random ?? Math.random)();
  return Math.round(base / 2 + (base / 2) * Math.min(Math.max(random, 0), 1));
}

/** Resolves after `ms`, or at once when `signal` aborts (then with `false`). */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
