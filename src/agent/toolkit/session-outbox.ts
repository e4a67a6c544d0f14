/**
 * A session's write-ahead outbox: group commit for recorded `session/update`s. What is offered in one tick (and while
 * the previous batch is being written) is appended to the store as one batch, made durable once (the file store
 * fsyncs each append), and only then sent to the client, in order. So an update the client saw is always in the
 * history, even after `kill -9`, at the cost of one store write per batch instead of one per update.
 *
 * Contracts:
 * - Order: entries are appended in the order offered, and updates are sent in that order, after the append of
 *   their batch resolved. Nothing of a batch is sent before its append resolved (a failed append is logged, and the
 *   batch is still sent: the client is not made to lose output because the disk is full).
 * - `offer` resolves as soon as the entry is accepted while fewer than `window` entries wait for the next batch;
 *   beyond that it waits until that batch is taken for writing (so a producer that streams faster than the disk or
 *   the client is slowed down, and at most two windows are held: one being written and sent, one filling). It
 *   rejects once sending failed (the connection is gone), with that error. An update the link refuses for itself
 *   (`MessageTooLargeError`, `UnserializableValueError`) is logged and fails only itself (the session checks
 *   before offering, so this is for a link whose limit it could not know).
 * - `written()` resolves once every entry offered before the call is durable; `sent()` once every entry offered so
 *   far (and while waiting) has been sent and the transport took it. Neither rejects.
 * - `busy` is true while anything offered is not yet sent: whoever sends other messages for the session waits for
 *   `sent()` first, so a request never overtakes an update offered before it.
 *
 * Spec: https://agentclientprotocol.com/protocol/session-setup#loading-sessions (the agent replays the whole
 * conversation on `session/load`: what the client saw must be in the history).
 */
import { MessageTooLargeError, UnserializableValueError } from "../../jsonrpc/local-errors.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { SessionUpdate } from "../../protocol/index.js";
import type { SessionRecord, SessionStore } from "./session-store.js";

/** Entries that may wait before `offer` makes its caller wait. */
export const DEFAULT_OUTBOX_WINDOW = 512;

interface Entry {
  readonly record: SessionRecord;
  /** Sent as a `session/update` once durable (false: recorded only). */
  readonly send: boolean;
}

/** What the outbox needs from its session. */
export interface OutboxOptions {
  readonly sessionId: string;
  readonly store: SessionStore;
  /** Sends one `session/update` (the connection's notify: resolves when the transport took it). */
  readonly notify: (update: SessionUpdate) => Promise<void>;
  readonly logger: Logger;
  readonly window?: number;
}

interface Waiter {
  readonly until: () => boolean;
  readonly resolve: () => void;
}

export class SessionOutbox {
  readonly #options: OutboxOptions;
  readonly #window: number;
  #pending: Entry[] = [];
  /** Entries offered so far / taken into a batch / durable / sent (sequence numbers). */
  #offered = 0;
  #taken = 0;
  #durable = 0;
  #sent = 0;
  #running = false;
  #failure: unknown;
  #waiters: Waiter[] = [];

  constructor(options: OutboxOptions) {
    this.#options = options;
    this.#window = Math.max(1, options.window ?? DEFAULT_OUTBOX_WINDOW);
  }

  /** True while something offered is not yet sent. */
  get busy(): boolean {
    return this.#sent < this.#offered;
  }

  /** Offers one record, sent as a `session/update` after it is durable when `send` (an `update` record). */
  offer(record: SessionRecord, send: boolean): Promise<void> {
    if (this.#failure !== undefined && send) return Promise.reject(this.#failure);
    this.#pending.push({ record, send });
    const seq = ++this.#offered;
    this.#start();
    if (this.#pending.length <= this.#window) return Promise.resolve();
    // Over the window: wait until the next batch is taken for writing.
    const room = seq - this.#window;
    return this.#wait(() => this.#taken >= room || this.#failure !== undefined).then(() => {
      if (this.#failure !== undefined && send) throw this.#failure;
    });
  }

  /** Resolves once every record offered before this call is durable (or its append failed and was logged). */
  written(): Promise<void> {
    const seq = this.#offered;
    return this.#durable >= seq ? Promise.resolve() : this.#wait(() => this.#durable >= seq);
  }

  /** Resolves once nothing offered is left unsent (entries offered while waiting included). */
  sent(): Promise<void> {
    return this.busy ? this.#wait(() => !this.busy) : Promise.resolve();
  }

  #wait(until: () => boolean): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ until, resolve }));
  }

  #wake(): void {
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.#waiters) {
      if (waiter.until()) waiter.resolve();
      else still.push(waiter);
    }
    this.#waiters = still;
  }

  #start(): void {
    if (this.#running) return;
    this.#running = true;
    // The rest of this tick joins the first batch.
    queueMicrotask(() => void this.#run());
  }

  async #run(): Promise<void> {
    const { store, sessionId, logger } = this.#options;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending;
        this.#pending = [];
        this.#taken += batch.length;
        this.#wake();
        try {
          await store.append(
            sessionId,
            batch.map((entry) => entry.record),
          );
        } catch (error) {
          logger.error("could not record session history", {
            sessionId,
            detail: error instanceof Error ? error.message : String(error),
          });
        }
        this.#durable += batch.length;
        this.#wake();
        await this.#send(batch);
        this.#sent += batch.length;
        this.#wake();
      }
    } finally {
      this.#running = false;
      this.#wake();
    }
  }

  /** Sends the batch's updates in order; waits for the transport to take the last one. */
  async #send(batch: readonly Entry[]): Promise<void> {
    if (this.#failure !== undefined) return;
    let last: Promise<void> | undefined;
    for (const entry of batch) {
      if (!entry.send || entry.record.kind !== "update") continue;
      const sending = this.#options.notify(entry.record.update);
      // Each is watched (a failure must not go unhandled); the last one is awaited for backpressure. A message the
      // link refused for itself (too large, not serializable) fails that update only: the connection is still up.
      sending.catch((error: unknown) => {
        if (!(error instanceof MessageTooLargeError) && !(error instanceof UnserializableValueError))
          return void (this.#failure ??= error);
        this.#options.logger.error("a recorded session/update could not be sent; later updates are", {
          sessionId: this.#options.sessionId,
          sessionUpdate: entry.record.kind === "update" ? entry.record.update.sessionUpdate : undefined,
          detail: error.message,
        });
      });
      last = sending;
    }
    if (last === undefined) return;
    await last.catch(() => {});
  }
}
