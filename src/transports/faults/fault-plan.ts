/**
 * The shared pieces of the fault-injection transports: a seeded random source (every run can be replayed from its
 * seed), the rule that says which frame a fault hits, the record of what was injected, and the errors a broken
 * pipe or a reset connection raises. Browser-safe.
 */

/**
 * Which frames a fault hits: a probability in [0, 1] (drawn from the seeded source), or a predicate over the
 * frame and its 0-based index in that direction (deterministic: "drop the third response").
 */
export type FaultRule<Frame> = number | ((frame: Frame, index: number) => boolean);

/** A delay in milliseconds: fixed, or drawn uniformly from `[min, max]` for each frame. */
export type Latency = number | readonly [min: number, max: number];

/** One fault that was injected, in the order they happened. */
export interface FaultEvent {
  /** `send`: what this side wrote; `receive`: what it read. */
  direction: "send" | "receive";
  kind: "drop" | "duplicate" | "delay" | "fragment" | "write_error" | "read_error" | "end";
  /** Index of the frame (message or chunk) in its direction. */
  index: number;
  /** A few words: the method or id of the message, or a byte count. */
  detail: string;
}

/** What a fault-injecting wrapper exposes: the seed to replay it, and what it injected so far. */
export interface FaultLog {
  /** The seed of this wrapper's random source. Pass it back as `seed` to replay the same faults. */
  readonly seed: number;
  /** Every fault injected so far, oldest first. */
  readonly events: readonly FaultEvent[];
}

/** A seeded pseudo-random source (mulberry32): fast, small, and the same sequence for the same seed. */
export class SeededRandom {
  readonly seed: number;
  #state: number;

  constructor(seed: number = Math.floor(Math.random() * 0x7fffffff)) {
    if (!Number.isInteger(seed)) throw new TypeError(`The fault seed must be an integer (got ${String(seed)}).`);
    this.seed = seed;
    this.#state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

/** Whether `rule` hits `frame`. An absent rule never does. */
export function hits<Frame>(
  rule: FaultRule<Frame> | undefined,
  frame: Frame,
  index: number,
  random: SeededRandom,
): boolean {
  if (rule === undefined) return false;
  if (typeof rule === "function") return rule(frame, index);
  if (!(rule >= 0 && rule <= 1))
    throw new RangeError(`A fault probability must be between 0 and 1 (got ${String(rule)}).`);
  return rule > 0 && random.next() < rule;
}

/** The delay for one frame, in milliseconds (0 without a latency). */
export function delayOf(latency: Latency | undefined, random: SeededRandom): number {
  if (latency === undefined) return 0;
  if (typeof latency === "number") return Math.max(0, latency);
  const [min, max] = latency;
  return Math.max(0, min + random.next() * (max - min));
}

/**
 * The error a write to a closed pipe raises (what Node reports when the reader of a pipe has gone): an `Error`
 * with `code: "EPIPE"`, marked as injected so that a test can tell it from a real one.
 */
export function injectedWriteError(detail: string): Error & { code: string; injected: true } {
  return Object.assign(new Error(`write EPIPE (injected fault: ${detail})`), {
    code: "EPIPE",
    injected: true as const,
  });
}

/** The error a read from a reset connection raises: `code: "ECONNRESET"`, marked as injected. */
export function injectedReadError(detail: string): Error & { code: string; injected: true } {
  return Object.assign(new Error(`read ECONNRESET (injected fault: ${detail})`), {
    code: "ECONNRESET",
    injected: true as const,
  });
}

/** Resolves after `ms` milliseconds (at once, in a macrotask, for 0). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A short description of a message for the fault log: its method and id, or its id alone. */
export function describeMessage(value: unknown): string {
  if (typeof value !== "object" || value === null) return typeof value;
  const record = value as { method?: unknown; id?: unknown };
  const id = record.id === undefined ? "" : `#${JSON.stringify(record.id)}`;
  if (typeof record.method === "string") return `${record.method}${id ? ` ${id}` : ""}`;
  return id ? `response ${id}` : "message";
}
