/**
 * Backpressure shared by every acpkit link, so that a peer that does not read never makes this side buffer without
 * bound:
 *
 * - Sends that wait (`drain()` after each, as `notify()` and a web writer do) are held at the high-water mark.
 * - Sends that do not wait are refused once `maxBufferedBytes` of output is queued: `send` throws an
 *   `OutputBacklogError` and nothing is queued. Replies to the peer's requests are never refused (the engine owes
 *   exactly one to each); instead:
 * - While the replies queued for the peer are above the high-water mark, the link stops reading the peer's input,
 *   until the output is below the mark again: a peer that sends requests and does not read the answers is held
 *   (its own writes then fill the pipe, socket or POST queue). Only replies count, never this side's own requests
 *   and notifications: two peers streaming to each other while one answers a large request would otherwise both
 *   stop reading and wait for each other for ever.
 *
 * Units are UTF-16 code units of the JSON text (a close stand-in for bytes, and free to count).
 */
import { OutputBacklogError } from "../jsonrpc/local-errors.js";
import type { AnyMessage } from "../jsonrpc/messages.js";

/** Default `maxBufferedBytes` of a link: 64 MiB of queued output (the remote server's default too). */
export const DEFAULT_MAX_BUFFERED_OUTPUT = 64 * 1024 * 1024;

/** Options every acpkit link takes for its outgoing backlog. */
export interface BackpressureOptions {
  /** `drain()` waits while more than this much output is queued; replies above it pause reading. */
  writeHighWaterMark?: number;
  /**
   * Output queued for the peer beyond which a request or notification that is sent without waiting is refused with
   * an `OutputBacklogError`. Default 64 MiB; `Infinity` turns the refusal off.
   */
  maxBufferedBytes?: number;
}

/** Validates `maxBufferedBytes` (a positive integer or `Infinity`) and applies the default. */
export function resolveMaxBufferedBytes(value: number | undefined): number {
  const max = value ?? DEFAULT_MAX_BUFFERED_OUTPUT;
  if (max !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(max) || max <= 0)) {
    throw new RangeError(`maxBufferedBytes must be a positive safe integer or Infinity, got ${String(value)}`);
  }
  return max;
}

/** True for a response (result or error): what this side owes the peer, never refused. */
export function isReply(message: AnyMessage): boolean {
  return !("method" in message);
}

/**
 * Throws `OutputBacklogError` when `message` is a request or notification and `buffered` output is already at
 * `maxBuffered`. Replies pass.
 */
export function refuseOverBacklog(message: AnyMessage, buffered: number, maxBuffered: number): void {
  if (buffered < maxBuffered || isReply(message)) return;
  throw new OutputBacklogError((message as { method: string }).method, buffered, maxBuffered);
}

/**
 * How much output is queued (or in flight) and how much of it is replies. Output leaves in the order it entered,
 * so the replies are found again by their end offsets; only replies cost an entry.
 */
export class OutputLedger {
  #entered = 0;
  #left = 0;
  #replies = 0;
  /** Pairs (end offset, units) of the replies not yet left, from `#head`. */
  #marks: number[] = [];
  #head = 0;

  /** Units queued or in flight. */
  get pending(): number {
    return this.#entered - this.#left;
  }

  /** Units of replies queued or in flight. */
  get replyPending(): number {
    return this.#replies;
  }

  /** `units` more output was queued; `reply` says whether it is a reply. */
  enter(units: number, reply: boolean): void {
    this.#entered += units;
    if (!reply) return;
    this.#replies += units;
    this.#marks.push(this.#entered, units);
  }

  /** The oldest `units` of output left (were written, delivered or posted). */
  leave(units: number): void {
    this.leaveUntil(this.#left + units);
  }

  /** Everything up to the absolute offset `left` (units since the start) has left. Never goes back. */
  leaveUntil(left: number): void {
    if (left <= this.#left) return;
    this.#left = Math.min(left, this.#entered);
    const marks = this.#marks;
    while (this.#head < marks.length && marks[this.#head]! <= this.#left) {
      this.#replies -= marks[this.#head + 1]!;
      this.#head += 2;
    }
    if (this.#head === marks.length) {
      this.#marks = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= marks.length) {
      this.#marks = marks.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Units ever queued (an absolute offset, for `leaveUntil`). */
  get entered(): number {
    return this.#entered;
  }

  /** Forgets everything queued (the output is gone). */
  clear(): void {
    this.#left = this.#entered;
    this.#replies = 0;
    this.#marks = [];
    this.#head = 0;
  }
}

/**
 * Input paused for any of three reasons, resumed when none holds: the reader's (a web-stream reader whose queue is
 * full, or the owner's `pauseInput()`), the output's (replies backed up, see the file comment) and the pacer's (a
 * burst of requests waits for the next turn, see `dispatch-pacer.ts`).
 */
export class InputGate {
  #reader = false;
  #output = false;
  #pacer = false;

  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
  ) {}

  /** True while the output holds the input. */
  get heldByOutput(): boolean {
    return this.#output;
  }

  /** The reader pauses (`true`) or resumes (`false`). */
  reader(paused: boolean): void {
    this.#set(paused, this.#output, this.#pacer);
  }

  /** The output holds (`true`) or releases (`false`) the input. */
  output(held: boolean): void {
    this.#set(this.#reader, held, this.#pacer);
  }

  /** The dispatch pacer holds (`true`) or releases (`false`) the input. */
  pacer(held: boolean): void {
    this.#set(this.#reader, this.#output, held);
  }

  #set(reader: boolean, output: boolean, pacer: boolean): void {
    const was = this.#reader || this.#output || this.#pacer;
    this.#reader = reader;
    this.#output = output;
    this.#pacer = pacer;
    const now = reader || output || pacer;
    if (now && !was) this.pause();
    else if (!now && was) this.resume();
  }
}
