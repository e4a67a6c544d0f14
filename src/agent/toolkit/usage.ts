/**
 * Context window and cost reporting: `usage_update` session updates, and a meter that keeps the cumulative session
 * cost so every update carries the total (the spec's `cost` is cumulative for the session).
 * The spec: `used` is the tokens currently in context, `size` the context window, `cost` the session's total so far.
 * @see https://agentclientprotocol.com/protocol/schema#usageupdate
 */
import type { Cost, SessionUpdate, UsageUpdate } from "../../protocol/index.js";
import type { UpdateSink } from "./tool-calls.js";

/** What a `usage_update` reports. */
export interface UsageReport {
  /** Tokens currently in context. */
  used: number;
  /** The context window, in tokens. */
  size: number;
  /** Cumulative session cost. */
  cost?: Cost;
}

/** The `usage_update` session update for `report` (non-negative integers expected for token counts). */
export function usageUpdate(report: UsageReport): SessionUpdate {
  if (!(report.used >= 0 && report.size >= 0))
    throw new RangeError(`usage needs non-negative used and size, got used=${report.used} size=${report.size}`);
  const update: UsageUpdate & { sessionUpdate: "usage_update" } = {
    sessionUpdate: "usage_update",
    used: report.used,
    size: report.size,
  };
  if (report.cost !== undefined) update.cost = { amount: report.cost.amount, currency: report.cost.currency };
  return update;
}

/** Keeps a session's usage: the context fill and the cumulative cost; `report` sends it all. */
export class UsageMeter {
  used = 0;
  size: number;
  #cost: Cost | undefined;

  constructor(size: number, used = 0) {
    this.size = size;
    this.used = used;
  }

  /** The cumulative cost, if any was added. */
  get cost(): Cost | undefined {
    return this.#cost === undefined ? undefined : { ...this.#cost };
  }

  /** Adds to the cumulative cost (one currency per session). */
  addCost(amount: number, currency: string): void {
    if (this.#cost !== undefined && this.#cost.currency !== currency) {
      throw new Error(`the session's cost is in ${this.#cost.currency}; cannot add ${currency}`);
    }
    this.#cost = { amount: (this.#cost?.amount ?? 0) + amount, currency };
  }

  /** Sets the context fill (and optionally the window size), then sends `usage_update` through `sink`. */
  report(sink: UpdateSink, used: number = this.used, size: number = this.size): Promise<void> {
    this.used = used;
    this.size = size;
    const report: UsageReport = { used, size };
    if (this.#cost !== undefined) report.cost = { ...this.#cost };
    return sink(usageUpdate(report));
  }
}
