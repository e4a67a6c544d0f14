import type { JsonRpcId } from "./messages.js";

/** One request this side sent and is waiting on. */
export interface PendingRequest {
  readonly method: string;
  /** Called synchronously when the response arrives (see `SendRequestOptions.onResponse`). */
  readonly arrived?: (() => void) | undefined;
  resolve(result: unknown): void;
  reject(error: unknown): void;
  /** Called once when the request settles, whichever way: clears timers and abort listeners. */
  cleanup?: () => void;
}

/**
 * The requests this side sent and is waiting on, by id. Ids are integers from 0, never reused on a connection.
 */
export class PendingRequests {
  private readonly byId = new Map<JsonRpcId, PendingRequest>();
  private nextId = 0;

  get size(): number {
    return this.byId.size;
  }

  allocateId(): number {
    return this.nextId++;
  }

  add(id: JsonRpcId, pending: PendingRequest): void {
    this.byId.set(id, pending);
  }

  /** Whether this side ever sent a request with this id (pending or settled). */
  wasSent(id: JsonRpcId): boolean {
    return typeof id === "number" && Number.isInteger(id) && id >= 0 && id < this.nextId;
  }

  has(id: JsonRpcId): boolean {
    return this.byId.has(id);
  }

  /** Removes and returns the pending request (after running its cleanup), or undefined when unknown. */
  take(id: JsonRpcId): PendingRequest | undefined {
    const pending = this.byId.get(id);
    if (pending === undefined) return undefined;
    this.byId.delete(id);
    pending.cleanup?.();
    return pending;
  }

  /** Rejects every pending request with `error` and forgets them all. */
  rejectAll(error: unknown): void {
    const all = [...this.byId.values()];
    this.byId.clear();
    for (const pending of all) {
      pending.cleanup?.();
      pending.reject(error);
    }
  }

  /** The methods of the requests still waiting, for diagnostics. */
  methods(): string[] {
    return [...this.byId.values()].map((p) => p.method);
  }
}
