/**
 * Retry of transient database errors: exponential backoff with jitter, bounded by a number of attempts and a total
 * time, then a `PostgresUnavailableError` that says what failed, how long it was tried, and the last error. Only what
 * `isTransientPostgresError` accepts is retried; anything else is thrown at once. The work must be safe to run again
 * (a read, a whole transaction, an idempotent write): a transaction's COMMIT whose outcome is unknown is reported as
 * `PostgresCommitUnknownError` by `PostgresPool.transaction`, never retried behind the caller's back.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../jsonrpc/logger.js";
import { isTransientPostgresError, PostgresUnavailableError } from "./errors.js";

/** How long to keep trying. The defaults ride out a database restart (a few seconds) but not an outage. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 10). */
  readonly attempts?: number;
  /** Give up once this much time has passed since the first attempt (default 30,000 ms). */
  readonly deadlineMs?: number;
  /** The first wait (default 50 ms); each next one doubles, up to `maxDelayMs`, with ±50% jitter. */
  readonly initialDelayMs?: number;
  /** The longest wait between two attempts (default 2,000 ms). */
  readonly maxDelayMs?: number;
  /** Which errors to retry (default `isTransientPostgresError`). */
  readonly isTransient?: (error: unknown) => boolean;
  /** Stops waiting: the pending wait rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Told of each retry (after the failed attempt, before the wait). */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** The defaults of `RetryOptions`. */
export const DEFAULT_RETRY = {
  attempts: 10,
  deadlineMs: 30_000,
  initialDelayMs: 50,
  maxDelayMs: 2_000,
} as const;

/** What a retried operation is, for the messages: "migrate", "insert events". */
export interface RetryContext {
  readonly operation: string;
  /** The database as `describeDatabase` gives it (never the password). */
  readonly database: string;
  readonly logger?: Logger | undefined;
  /** Applied to every error before it is logged or thrown (the pool's redaction). */
  readonly redact?: (<E>(error: E) => E) | undefined;
}

/**
 * Runs `work` (given the attempt number, from 1) until it succeeds, fails with a permanent error (thrown as it is),
 * or the bound is reached (`PostgresUnavailableError`, the last error as its `cause`).
 */
export async function withPostgresRetry<T>(
  work: (attempt: number) => Promise<T>,
  context: RetryContext,
  options: RetryOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? DEFAULT_RETRY.attempts);
  const deadlineMs = options.deadlineMs ?? DEFAULT_RETRY.deadlineMs;
  const isTransient = options.isTransient ?? isTransientPostgresError;
  const redact = context.redact ?? (<E>(error: E) => error);
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await work(attempt);
    } catch (caught) {
      const error = redact(caught);
      if (!isTransient(error)) throw error;
      const elapsed = performance.now() - started;
      const delay = backoffDelay(attempt, options);
      if (attempt >= attempts || elapsed + delay > deadlineMs)
        throw new PostgresUnavailableError(context.operation, context.database, attempt, elapsed, error);
      options.onRetry?.(error, attempt, delay);
      context.logger?.debug(`postgres: ${context.operation} failed (${describe(error)}); retrying in ${delay} ms`, {
        attempt,
        database: context.database,
      });
      if (options.signal === undefined) await sleep(delay);
      else
        await sleep(delay, undefined, { signal: options.signal }).catch((abort: unknown) => {
          // Reject with the signal's reason (as `throwIfAborted` does), not the timer's AbortError.
          options.signal!.throwIfAborted();
          throw abort;
        });
    }
  }
}

/** The wait after failed attempt `attempt` (from 1): initial * 2^(attempt-1), capped, times a jitter in [0.5, 1.5). */
export function backoffDelay(attempt: number, options: RetryOptions = {}): number {
  const initial = options.initialDelayMs ?? DEFAULT_RETRY.initialDelayMs;
  const max = options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const base = Math.min(max, initial * 2 ** Math.min(attempt - 1, 30));
  return Math.round(Math.min(max, base * (0.5 + Math.random())));
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${message}` : message;
}
