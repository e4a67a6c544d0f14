import type { JsonRpcId } from "./messages.js";

/**
 * What a request handler gets besides the params: the request's id and method, and an `AbortSignal` that fires
 * when the peer cancels the request (`$/cancel_request`) or the connection closes.
 */
export interface IncomingRequestContext {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly signal: AbortSignal;
}

/**
 * One request the peer sent and this side has not answered yet. The `AbortController` is created only when
 * somebody reads `signal` (most handlers never do), which keeps the round-trip path cheap.
 */
export class IncomingRequest implements IncomingRequestContext {
  private controller: AbortController | undefined;
  private abortReason: unknown;
  cancelled = false;
  answered = false;

  constructor(
    readonly id: JsonRpcId,
    readonly method: string,
    /** The id's exact text when a JS number cannot hold it (echoed in the reply). */
    readonly rawId?: string,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}

/** The requests the peer sent that are still being handled, by id. */
export class IncomingRequests {
  private readonly byId = new Map<JsonRpcId, IncomingRequest>();

  get size(): number {
    return this.byId.size;
  }

  has(id: JsonRpcId): boolean {
    return this.byId.has(id);
  }

  get(id: JsonRpcId): IncomingRequest | undefined {
    return this.byId.get(id);
  }

  add(request: IncomingRequest): void {
    this.byId.set(request.id, request);
  }

  delete(request: IncomingRequest): void {
    if (this.byId.get(request.id) === request) this.byId.delete(request.id);
  }

  abortAll(reason: unknown): void {
    for (const request of this.byId.values()) request.abort(reason);
  }
}
