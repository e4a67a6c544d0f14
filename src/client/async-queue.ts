/** A slot reserved in an `AsyncQueue`: it keeps its place, and what comes after waits until it is settled. */
export interface QueueSlot<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

type Entry<T> = { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "slot"; settled?: Entry<T> };
type Waiter<T> = { resolve: (value: T) => void; reject: (error: unknown) => void };

/**
 * An unbounded FIFO of values and errors read with `next()`, in order.
 *
 * - `push` queues a value (or hands it to the oldest waiting `next()`).
 * - `pushError` queues an error; when it reaches the head while `next()` calls wait, all of them reject with it.
 * - `reserve` queues a slot settled later: entries behind it are not delivered until it is.
 * - `fail` ends the queue: later pushes are ignored, entries already queued are still delivered, then every
 *   `next()` rejects with the failure.
 */
export class AsyncQueue<T> {
  private entries: Entry<T>[] = [];
  private waiters: Waiter<T>[] = [];
  private failure: { error: unknown } | undefined;

  /** True once `fail` was called. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  push(value: T): void {
    if (this.failure) return;
    this.entries.push({ kind: "value", value });
    this.pump();
  }

  pushError(error: unknown): void {
    if (this.failure) return;
    this.entries.push({ kind: "error", error });
    this.pump();
  }

  reserve(): QueueSlot<T> {
    const slot: Entry<T> & { kind: "slot" } = { kind: "slot" };
    if (!this.failure) this.entries.push(slot);
    const settle = (entry: Entry<T>) => {
      if (slot.settled) return;
      slot.settled = entry;
      this.pump();
    };
    return {
      resolve: (value) => settle({ kind: "value", value }),
      reject: (error) => settle({ kind: "error", error }),
    };
  }

  /** Drops queued errors (a new prompt turn starts clean). */
  clearErrors(): void {
    this.entries = this.entries.filter(
      (entry) => entry.kind !== "error" && !(entry.kind === "slot" && entry.settled?.kind === "error"),
    );
  }

  fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    this.pump();
  }

  /**
   * The next entry, in order. Aborting `signal` rejects this read with the signal's reason and takes nothing from
   * the queue: what this read would have got stays for the next one.
   */
  next(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      if (signal === undefined) {
        this.waiters.push({ resolve, reject });
        this.pump();
        return;
      }
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal.reason);
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiters.length > 0 && this.entries.length > 0) {
      let head = this.entries[0]!;
      if (head.kind === "slot") {
        if (head.settled === undefined) return;
        head = head.settled;
      }
      this.entries.shift();
      if (head.kind === "value") this.waiters.shift()!.resolve(head.value);
      else if (head.kind === "error") for (const waiter of this.waiters.splice(0)) waiter.reject(head.error);
    }
    if (this.failure && this.entries.length === 0) {
      for (const waiter of this.waiters.splice(0)) waiter.reject(this.failure.error);
    }
  }
}
