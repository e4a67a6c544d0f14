/**
 * `faultyLink` and `withFaults`: a message link (or any `Stream`) that misbehaves on purpose, the way a lossy
 * proxy, a crashed peer or a broken pipe would, so that tests can check what the code above it does. Seeded:
 * the same seed injects the same faults. Browser-safe.
 */
import type { LinkReceiver, MessageLink, Stream } from "../../jsonrpc/link.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { LinkLifecycle } from "../link-lifecycle.js";
import { streamFromLink } from "../link-streams.js";
import { linkFromStream } from "../stream-link.js";
import {
  delayOf,
  describeMessage,
  hits,
  injectedWriteError,
  SeededRandom,
  sleep,
  type FaultEvent,
  type FaultLog,
  type FaultRule,
  type Latency,
} from "./fault-plan.js";

/** Faults applied to the messages going one way. */
export interface MessageFaults {
  /** Messages that vanish. */
  drop?: FaultRule<unknown>;
  /** Messages that arrive (or are written) twice in a row. */
  duplicate?: FaultRule<unknown>;
}

/** Faults applied to what this side receives. */
export interface ReceiveFaults extends MessageFaults {
  /** Each incoming message is delivered this long after the previous delivery or its arrival (order is kept). */
  latencyMs?: Latency;
  /**
   * The peer "exits" after this many messages were delivered: the input ends (a clean end of input, as a dead process's
   * stdout gives), later messages are lost.
   */
  endAfter?: number;
}

/** Faults applied to what this side sends. */
export interface SendFaults extends MessageFaults {
  /**
   * After this many messages were written, the output breaks: the next send fails as a write to a closed pipe (EPIPE)
   * would, ending the link with that error; later sends are lost.
   */
  failAfter?: number;
}

/** Options of `faultyLink` and `withFaults`. */
export interface LinkFaultOptions {
  /**
   * Seed of the random source behind probabilities and latency ranges. Default: a random one (see `seed` on the
   * result).
   */
  seed?: number;
  send?: SendFaults;
  receive?: ReceiveFaults;
  /** Called for each fault as it is injected (also recorded in `events`). */
  onFault?: (event: FaultEvent) => void;
}

/** A `MessageLink` wrapping another, injecting faults. See `faultyLink`. */
export class FaultyLink implements MessageLink, FaultLog {
  readonly #inner: MessageLink;
  readonly #options: LinkFaultOptions;
  readonly #random: SeededRandom;
  readonly #events: FaultEvent[] = [];
  /** The receiver, and the end of the input as the engine sees it (the peer's real end or an injected one). */
  readonly #life = new LinkLifecycle();
  #sent = 0;
  #received = 0;
  #delivered = 0;
  /** Incoming work (messages, problems, the end) in arrival order, waiting for its latency. */
  #queue: Promise<void> = Promise.resolve();
  #waiting = 0;
  #outputBroken = false;

  constructor(inner: MessageLink, options: LinkFaultOptions = {}) {
    this.#inner = inner;
    this.#options = options;
    this.#random = new SeededRandom(options.seed);
  }

  /** The wrapped link's size limit. */
  get maxMessageBytes(): number | undefined {
    return this.#inner.maxMessageBytes;
  }

  get seed(): number {
    return this.#random.seed;
  }

  get events(): readonly FaultEvent[] {
    return this.#events;
  }

  start(receiver: LinkReceiver): void {
    this.#life.start(receiver);
    this.#inner.start({
      message: (value, rawId) => this.#arrive(value, rawId),
      problem: (problem) => this.#later(() => this.#life.receiver!.problem(problem)),
      closed: (cause) => this.#later(() => this.#end(cause)),
    });
    if (this.#options.receive?.endAfter === 0) this.#later(() => this.#endIfDone(), false, true);
  }

  send(message: AnyMessage, rawId?: string): void {
    if (this.#outputBroken) return;
    const index = this.#sent++;
    const faults = this.#options.send ?? {};
    if (faults.failAfter !== undefined && index >= faults.failAfter) {
      this.#outputBroken = true;
      this.#record("send", "write_error", index, describeMessage(message));
      const error = injectedWriteError(`the output broke after ${faults.failAfter} messages`);
      // As a real link does: a failed write ends the link with that error, never reentrantly (after this send returns).
      this.#later(() => this.#end(error), false, true);
      void this.#inner.close().catch(() => {});
      return;
    }
    if (hits(faults.drop, message, index, this.#random)) {
      this.#record("send", "drop", index, describeMessage(message));
      return;
    }
    this.#inner.send(message, rawId);
    if (hits(faults.duplicate, message, index, this.#random)) {
      this.#record("send", "duplicate", index, describeMessage(message));
      this.#inner.send(message, rawId);
    }
  }

  drain(): Promise<void> {
    return this.#outputBroken ? Promise.resolve() : this.#inner.drain();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #record(direction: FaultEvent["direction"], kind: FaultEvent["kind"], index: number, detail: string): void {
    const event: FaultEvent = { direction, kind, index, detail };
    this.#events.push(event);
    this.#options.onFault?.(event);
  }

  /** Runs `step` after everything that arrived before it, after a latency when one is set for messages. */
  #later(step: () => void, delayed = false, deferred = false): void {
    const ms = delayed ? delayOf(this.#options.receive?.latencyMs, this.#random) : 0;
    // Nothing waiting and no delay: deliver now, as the link below does (dispatch stays synchronous).
    if (ms === 0 && this.#waiting === 0 && !deferred) {
      step();
      return;
    }
    this.#waiting++;
    this.#queue = this.#queue.then(async () => {
      if (ms > 0) await sleep(ms);
      this.#waiting--;
      step();
    });
  }

  #arrive(value: unknown, rawId: string | undefined): void {
    if (this.#life.finished) return;
    const index = this.#received++;
    const faults = this.#options.receive ?? {};
    if (hits(faults.drop, value, index, this.#random)) {
      this.#record("receive", "drop", index, describeMessage(value));
      return;
    }
    const twice = hits(faults.duplicate, value, index, this.#random);
    if (faults.latencyMs !== undefined) this.#record("receive", "delay", index, describeMessage(value));
    this.#later(() => {
      this.#deliver(value, rawId);
      if (twice) {
        this.#record("receive", "duplicate", index, describeMessage(value));
        this.#deliver(value, rawId);
      }
    }, faults.latencyMs !== undefined);
  }

  #deliver(value: unknown, rawId: string | undefined): void {
    if (this.#life.finished) return;
    this.#delivered++;
    this.#life.receiver!.message(value, rawId);
    this.#endIfDone();
  }

  /** The peer "exits" once `receive.endAfter` messages were delivered. */
  #endIfDone(): void {
    const endAfter = this.#options.receive?.endAfter;
    if (endAfter === undefined || this.#delivered < endAfter || this.#life.finished) return;
    this.#record("receive", "end", this.#delivered, `the peer exited after ${endAfter} messages`);
    this.#end(undefined);
    void this.#inner.close().catch(() => {});
  }

  #end(cause: unknown): void {
    this.#life.finish(cause);
  }
}

/**
 * Wraps `link` so that it injects the faults of `options`: dropped and duplicated messages either way, latency
 * and a slow reader on the way in (`receive.latencyMs`, order kept), a peer that exits after N messages
 * (`receive.endAfter`), an output that breaks with EPIPE after N messages (`send.failAfter`).
 *
 * Contract: the engine above sees exactly what a real link would show for those events (a message that never
 * comes, one that comes twice, a clean end of input, `closed(error)` after a failed write); nothing else changes.
 * `seed` and `events` say what was injected, so a failure can be replayed.
 */
export function faultyLink(link: MessageLink, options: LinkFaultOptions = {}): FaultyLink {
  return new FaultyLink(link, options);
}

/**
 * Wraps any `Stream` (an acpkit transport or a foreign `{ readable, writable }` pair) so that a connection built
 * on it sees the faults of `options` (see `faultyLink`). The result is a `Stream` with a `faults` log.
 */
export function withFaults(stream: Stream, options: LinkFaultOptions = {}): Stream & { faults: FaultLog } {
  const link = faultyLink(linkFromStream(stream), options);
  return Object.assign(streamFromLink(link), { faults: link as FaultLog });
}
