/**
 * The PostgreSQL store's side of the leases (`postgres-session-lease.ts` has the statements): what this store holds
 * per session, the order of the session's operations, taking a lease (at once or waiting, by option), renewing all
 * of them on a timer, giving them up, and remembering a lease found taken over so nothing more is written to that
 * session here.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../jsonrpc/logger.js";
import type { PostgresPool } from "../postgres/pool.js";
import {
  currentHolders,
  leasedError,
  lostError,
  releaseLeases,
  renewLeases,
  tryAcquire,
  type HeldLease,
  type LeaseHolder,
  type SessionLeaseError,
} from "./postgres-session-lease.js";

/** What this store knows of one session. */
export interface SessionState {
  chain: Promise<void>;
  steps: number;
  lease: HeldLease | undefined;
  lost: SessionLeaseError | undefined;
  /** Appends handed to the batcher and not yet settled. */
  readonly writes: Set<Promise<unknown>>;
}

export interface LeasePolicy {
  readonly ttlMs: number;
  readonly whenLeased: "fail" | "wait";
  readonly waitMs: number;
}

/** What an attempt refused by another holder's lease says; anything else ends the wait. */
export type LeasedAttempt<V> =
  | { state: "acquired"; value: V }
  | { state: "deleted" | "missing" }
  | { state: "held"; holder: string | undefined; remainingMs: number };

const noop = () => {};
export const settle = (promises: Iterable<Promise<unknown>>) => Promise.allSettled([...promises]).then(noop);
export const missing = (sessionId: string) => new Error(`session ${sessionId} does not exist`);

export class LeaseKeeper {
  readonly #states = new Map<string, SessionState>();
  readonly #holder: LeaseHolder;
  readonly #policy: LeasePolicy;
  readonly #logger: () => Logger;
  #pool: PostgresPool | undefined;
  #renewal: ReturnType<typeof setInterval> | undefined;
  #renewing = false;

  constructor(holder: LeaseHolder, policy: LeasePolicy, logger: () => Logger) {
    this.#holder = holder;
    this.#policy = policy;
    this.#logger = logger;
  }

  /** Starts renewing, every third of the lease time, on `pool`. */
  attach(pool: PostgresPool): void {
    this.#pool = pool;
    this.#renewal = setInterval(() => void this.#renew(), Math.max(50, Math.floor(this.#policy.ttlMs / 3)));
    this.#renewal.unref();
  }

  /** Stops renewing (closing). */
  stop(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  state(sessionId: string): SessionState {
    let state = this.#states.get(sessionId);
    if (state === undefined) {
      state = { chain: Promise.resolve(), steps: 0, lease: undefined, lost: undefined, writes: new Set() };
      this.#states.set(sessionId, state);
    }
    return state;
  }

  existing(sessionId: string): SessionState | undefined {
    return this.#states.get(sessionId);
  }

  /** Every session's queue, to wait for (closing). */
  chains(): Promise<void>[] {
    return [...this.#states.values()].map((state) => state.chain);
  }

  /** Runs `work` after everything queued for the session; forgets an idle session that holds nothing. */
  step<T>(sessionId: string, state: SessionState, work: () => Promise<T>): Promise<T> {
    state.steps++;
    const run = state.chain.then(work).finally(() => {
      state.steps--;
      const idle = state.steps === 0 && state.writes.size === 0;
      if (idle && state.lease === undefined && state.lost === undefined && this.#states.get(sessionId) === state)
        this.#states.delete(sessionId);
    });
    state.chain = run.then(noop, noop);
    return run;
  }

  /** The lease this store holds on the session, taken now if it holds none. Throws once it was lost. */
  async lease(sessionId: string, state: SessionState): Promise<HeldLease> {
    if (state.lost !== undefined) throw state.lost;
    if (state.lease !== undefined) return state.lease;
    const pool = this.#pool!;
    const lease = await this.whileLeased<HeldLease>(sessionId, async () => {
      const attempt = await pool.retry("take a session lease", () =>
        tryAcquire(pool, this.#holder, sessionId, this.#policy.ttlMs),
      );
      return attempt.state === "acquired" ? { state: "acquired", value: attempt.lease } : attempt;
    });
    if (lease === undefined) throw missing(sessionId);
    state.lease = lease;
    return lease;
  }

  /**
   * Runs `attempt` until it is not refused by another holder's lease: once (`whenLeased: "fail"`), or until the wait
   * is over, then throws `session_leased`. Resolves with the attempt's value (undefined: deleted, or no session).
   */
  async whileLeased<V>(sessionId: string, attempt: () => Promise<LeasedAttempt<V>>): Promise<V | undefined> {
    const wait = this.#policy.whenLeased === "wait";
    const started = performance.now();
    const deadline = started + (wait ? this.#policy.waitMs : 0);
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      const result = await attempt();
      if (result.state === "acquired") return result.value;
      if (result.state !== "held") return undefined;
      const now = performance.now();
      if (now >= deadline)
        throw leasedError(sessionId, result.holder, result.remainingMs, wait ? now - started : undefined);
      await sleep(Math.max(1, Math.min(delay, deadline - now, result.remainingMs + 5)));
    }
  }

  /**
   * Why writes under these leases were refused (the session is gone, or another store took it over), with each
   * session's state updated: a lost lease is remembered, so nothing more is written to that session here.
   */
  async refused(items: readonly { sessionId: string; token: string }[]): Promise<Map<string, Error>> {
    const pool = this.#pool!;
    // Unknown (the database cannot say): taken as lost, the safe side.
    const holders = await pool
      .retry("read session leases", () => currentHolders(pool, [...new Set(items.map((item) => item.sessionId))]))
      .catch(() => undefined);
    const errors = new Map<string, Error>();
    for (const { sessionId, token } of items) {
      const state = this.#states.get(sessionId);
      const current = state?.lease?.token === token ? state : undefined;
      if (holders !== undefined && !holders.has(sessionId)) {
        errors.set(sessionId, missing(sessionId));
        if (current !== undefined) current.lease = undefined;
        continue;
      }
      const error = lostError(sessionId, holders?.get(sessionId));
      errors.set(sessionId, error);
      if (current !== undefined) {
        current.lease = undefined;
        current.lost = error;
        this.#logger().error(
          "lost the write lease of a session to another process; nothing more is written to it here",
          { sessionId, holder: holders?.get(sessionId) ?? null },
        );
      }
    }
    return errors;
  }

  /** Gives up the session's lease once its pending writes are done; forgets that it was lost. Never rejects. */
  release(sessionId: string): Promise<void> {
    const state = this.#states.get(sessionId);
    const pool = this.#pool;
    if (state === undefined || pool === undefined) return Promise.resolve();
    return this.step(sessionId, state, async () => {
      await settle(state.writes);
      const lease = state.lease;
      state.lease = undefined;
      state.lost = undefined;
      if (lease !== undefined)
        await releaseLeases(pool, this.#holder, new Map([[sessionId, lease]])).catch((error: unknown) =>
          this.#logger().warn("could not release a session lease; it lapses by itself", {
            sessionId,
            detail: error instanceof Error ? error.message : String(error),
          }),
        );
    }).catch(noop);
  }

  /** Gives up every lease held (closing, once nothing is pending). Never rejects. */
  async releaseAll(): Promise<void> {
    const leases = this.#held();
    for (const state of this.#states.values()) state.lease = undefined;
    if (this.#pool === undefined) return;
    await releaseLeases(this.#pool, this.#holder, leases).catch((error: unknown) =>
      this.#logger().warn("could not release the session leases; they lapse by themselves", {
        detail: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** The leases held now. */
  #held(): Map<string, HeldLease> {
    const leases = new Map<string, HeldLease>();
    for (const [sessionId, state] of this.#states) if (state.lease !== undefined) leases.set(sessionId, state.lease);
    return leases;
  }

  /** Renews every lease held (the timer); a lease found taken over is marked lost. Failures are logged. */
  async #renew(): Promise<void> {
    const pool = this.#pool;
    const leases = this.#held();
    if (pool === undefined || this.#renewing || leases.size === 0 || this.#renewal === undefined) return;
    this.#renewing = true;
    try {
      const kept = await renewLeases(pool, this.#holder, leases, this.#policy.ttlMs);
      const gone = [...leases].filter(([sessionId]) => !kept.has(sessionId));
      if (gone.length > 0) await this.refused(gone.map(([sessionId, lease]) => ({ sessionId, token: lease.token })));
    } catch (error) {
      this.#logger().warn("could not renew session leases (they hold while nobody takes them over); retrying", {
        database: pool.database,
        detail: error instanceof Error ? error.message : String(error),
      });
    } finally {
      this.#renewing = false;
    }
  }
}
