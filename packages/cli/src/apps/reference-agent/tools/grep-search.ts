/**
 * The search behind `/grep`, off the event loop: a worker thread walks the files and runs the regular expression,
 * so a catastrophic pattern (`(a+)+$` on a long line of a's) cannot freeze the agent: cancels and every other
 * request keep being served. The worker is terminated when the turn is cancelled or when the search runs past its
 * time limit; either way the caller is told at once.
 */
import { Worker } from "node:worker_threads";

/** What to search, as the worker gets it. */
export interface GrepJob {
  root: string;
  pattern: string;
  maxMatches: number;
  maxFileBytes: number;
  skip: readonly string[];
}

/** One matching line. */
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

/** The search ran past its time limit and was stopped. */
export class GrepTimeLimitError extends Error {
  override readonly name = "GrepTimeLimitError";
  constructor(readonly limitMs: number) {
    super(
      `the search took longer than ${limitMs} ms and was stopped; the pattern may backtrack catastrophically ` +
        `(like (a+)+$): simplify it`,
    );
  }
}

// Compiled, this file is grep-search.js beside grep-worker.js; run from source (tsx), both are .ts.
const WORKER = new URL(`./grep-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url);

/**
 * Runs `job` in a worker thread; resolves with the matches in file order. Rejects with `signal.reason` when the
 * signal aborts, and with `GrepTimeLimitError` after `timeLimitMs`; the worker is terminated in both cases.
 */
export function searchFiles(job: GrepJob, options: { signal: AbortSignal; timeLimitMs: number }): Promise<GrepMatch[]> {
  const { signal, timeLimitMs } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<GrepMatch[]>((resolve, reject) => {
    const worker = new Worker(WORKER, {
      workerData: job,
      ...(import.meta.url.endsWith(".ts") ? { execArgv: ["--import", "tsx"] } : {}),
    });
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      outcome();
    };
    const onAbort = () => finish(() => reject(signal.reason));
    const timer = setTimeout(() => finish(() => reject(new GrepTimeLimitError(timeLimitMs))), timeLimitMs);
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (matches: GrepMatch[]) => finish(() => resolve(matches)));
    worker.once("error", (error) => finish(() => reject(error)));
    worker.once("exit", (code) =>
      finish(() => reject(new Error(`the search worker stopped (exit code ${code}) without an answer`))),
    );
  });
}
