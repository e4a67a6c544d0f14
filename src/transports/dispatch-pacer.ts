/**
 * Paces the delivery of incoming lines so that one read cannot start an unbounded number of requests at once.
 *
 * The reply hold (`backpressure.ts`) stops reading once the replies owed to a peer that does not read back up; but
 * it sees replies only once handlers answer, after the whole chunk was dispatched. One 64 KiB read of small requests
 * is over a thousand requests, each owed an answer that may be large: a flood amplified past any bound. So at most
 * `maxBurst` requests are delivered per turn of the event loop; the lines after them (requests, responses and
 * notifications alike, order kept) wait for the next turn with reading paused, and while the output holds the input
 * they keep waiting. What waits is at most the rest of one read. Nothing is held for a peer that does read: handlers
 * that are waiting on the peer are not counted, only requests delivered in the same turn.
 */

import { nextTurn } from "./next-turn.js";

/** Requests delivered in one turn before the rest waits for the next: a few times what any real peer sends at once. */
export const DEFAULT_MAX_REQUEST_BURST = 256;

/** One delivery: returns true when it delivered a request (something owed a reply). */
export type Delivery = () => boolean;

export class DispatchPacer {
  #count = 0;
  #resetScheduled = false;
  #waiting: Delivery[] = [];
  #head = 0;
  #stopped = false;
  #idle: Array<() => void> = [];

  constructor(
    private readonly maxBurst: number,
    /** Pauses (`true`) or resumes (`false`) reading. */
    private readonly hold: (held: boolean) => void,
    /** True while the output holds the input: waiting lines stay waiting. */
    private readonly outputHeld: () => boolean,
  ) {}

  /** Lines waiting for a later turn. For tests and stats. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Delivers now, or queues behind what waits (order kept). */
  run(delivery: Delivery): void {
    if (this.#stopped) return;
    if (this.#head < this.#waiting.length || this.#count >= this.maxBurst) {
      if (this.#head === this.#waiting.length) this.hold(true);
      this.#waiting.push(delivery);
      this.#scheduleReset();
      return;
    }
    if (delivery()) this.#counted();
  }

  /** Runs `then` once nothing waits (now, when nothing does). Not after `stop()`. */
  whenIdle(then: () => void): void {
    if (this.waiting === 0) then();
    else this.#idle.push(then);
  }

  /** The output released the input: waiting lines go on. */
  outputReleased(): void {
    if (this.waiting > 0 && !this.#resetScheduled) this.#continue();
  }

  /** Drops what waits; nothing more is delivered. */
  stop(): void {
    this.#stopped = true;
    this.#idle = [];
    this.#waiting = [];
    this.#head = 0;
  }

  #counted(): void {
    this.#count++;
    this.#scheduleReset();
  }

  #scheduleReset(): void {
    if (this.#resetScheduled) return;
    this.#resetScheduled = true;
    nextTurn(() => {
      this.#resetScheduled = false;
      this.#count = 0;
      this.#continue();
    });
  }

  #continue(): void {
    while (!this.#stopped && this.#head < this.#waiting.length && this.#count < this.maxBurst && !this.outputHeld()) {
      const delivery = this.#waiting[this.#head]!;
      this.#waiting[this.#head++] = undefined as unknown as Delivery;
      if (delivery()) this.#counted();
    }
    if (this.#stopped) return;
    if (this.#head < this.#waiting.length) {
      if (this.#count >= this.maxBurst) this.#scheduleReset();
      return; // held by the output: outputReleased() goes on
    }
    this.#waiting = [];
    this.#head = 0;
    this.hold(false);
    for (const then of this.#idle.splice(0)) then();
  }
}
