/**
 * One underlying link of a reconnecting link ("generation" N): it carries the application's traffic, lets the
 * reconnecting link send its own requests (`initialize`, `authenticate`, `session/load`) and take their answers,
 * and keeps agent request ids of different generations apart (a new agent connection numbers its requests from
 * the start again, while the application may still be answering the old ones).
 */
import type { FrameProblem, MessageLink } from "../../jsonrpc/link.js";
import { ConnectionClosedError, RequestTimeoutError } from "../../jsonrpc/local-errors.js";
import {
  isRecord,
  type AnyMessage,
  type AnyResponse,
  type ErrorResponse,
  type JsonRpcId,
} from "../../jsonrpc/messages.js";
import { RequestError } from "../../jsonrpc/request-error.js";

/** Where a generation's traffic goes. */
export interface GenerationSink {
  /** A message for the application. */
  message(value: unknown): void;
  problem(problem: FrameProblem): void;
  /** The link ended (`cause` undefined on a clean end). */
  closed(generation: Generation, cause: unknown): void;
}

function key(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  if (id === null) return "null";
  return undefined;
}

/** See the file comment. */
export class Generation {
  readonly number: number;
  readonly link: MessageLink;
  readonly #sink: GenerationSink;
  /** Our own requests on this link, by id. */
  readonly #waiting = new Map<
    string,
    { resolve: (result: unknown) => void; reject: (error: unknown) => void; method: string }
  >();
  /** Agent requests delivered to the application, by the id it saw -> the agent's id (identity in generation 0). */
  readonly #incoming = new Map<string, JsonRpcId>();
  readonly #outgoingIds = new Map<string, string>();
  /** Sessions whose `session/update`s are held back (a reattach replaying history), with their count. */
  readonly #muted = new Map<string, number>();
  #nextOwnId = 0;
  #nextMappedId = 0;
  #closed = false;

  constructor(number: number, link: MessageLink, sink: GenerationSink) {
    this.number = number;
    this.link = link;
    this.#sink = sink;
    link.start({
      message: (value) => this.#receive(value),
      problem: (problem) => this.#sink.problem(problem),
      closed: (cause) => {
        this.#closed = true;
        const error = new ConnectionClosedError(
          cause === undefined
            ? "the link ended"
            : `the link ended: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause,
        );
        for (const waiter of this.#waiting.values()) waiter.reject(error);
        this.#waiting.clear();
        this.#sink.closed(this, cause);
      },
    });
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  /** Sends a request of the reconnecting link's own; resolves with its result, rejects with its error. */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(new ConnectionClosedError("the link ended"));
    const id = `acpkit-reconnect-${this.number}-${this.#nextOwnId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.#waiting.delete(key(id)!)) reject(new RequestTimeoutError(method, timeoutMs));
      }, timeoutMs);
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          fn(value);
        };
      this.#waiting.set(key(id)!, { resolve: settle(resolve), reject: settle(reject), method });
      try {
        this.link.send({ jsonrpc: "2.0", id, method, params } as AnyMessage);
      } catch (error) {
        this.#waiting.delete(key(id)!);
        clearTimeout(timer);
        reject(error);
      }
    });
  }

  /** Holds back `session/update`s of `sessionId` until `unmute`, which returns how many were held back. */
  mute(sessionId: string): void {
    this.#muted.set(sessionId, 0);
  }

  unmute(sessionId: string): number {
    const count = this.#muted.get(sessionId) ?? 0;
    this.#muted.delete(sessionId);
    return count;
  }

  /**
   * Sends the application's answer to an agent request, if that request came on this link (mapped back to the
   * agent's id). False when it did not: the answer belongs to a link that is gone and is dropped.
   */
  answer(response: AnyResponse): boolean {
    const k = key(response.id);
    if (k === undefined || !this.#incoming.has(k)) return false;
    const original = this.#incoming.get(k)!;
    this.#incoming.delete(k);
    this.#outgoingIds.delete(key(original)!);
    this.link.send(original === response.id ? response : { ...response, id: original });
    return true;
  }

  /** Sends an application message that is not a response (requests and notifications keep their ids). */
  forward(message: AnyMessage): void {
    this.link.send(message);
  }

  #receive(value: unknown): void {
    if (!isRecord(value)) return this.#sink.message(value);
    const method = value.method;
    if (typeof method !== "string") {
      const k = key(value.id);
      const waiter = k === undefined ? undefined : this.#waiting.get(k);
      if (waiter !== undefined) {
        this.#waiting.delete(k!);
        if ("result" in value) waiter.resolve(value.result);
        else {
          const error = value.error as ErrorResponse | undefined;
          waiter.reject(
            isRecord(error) && typeof error.code === "number"
              ? RequestError.fromErrorResponse(error)
              : new RequestError(-32603, `malformed answer to ${waiter.method}`),
          );
        }
        return;
      }
      return this.#sink.message(value);
    }
    if (
      method === "session/update" &&
      this.#muted.size > 0 &&
      isRecord(value.params) &&
      typeof value.params.sessionId === "string" &&
      this.#muted.has(value.params.sessionId)
    ) {
      this.#muted.set(value.params.sessionId, this.#muted.get(value.params.sessionId)! + 1);
      return;
    }
    if ("id" in value) return this.#sink.message(this.#mapIncoming(value));
    if (method === "$/cancel_request" && this.number > 0 && isRecord(value.params)) {
      const mapped = this.#outgoingIds.get(key(value.params.requestId) ?? "");
      if (mapped !== undefined)
        return this.#sink.message({ ...value, params: { ...value.params, requestId: this.#mappedId(mapped) } });
    }
    this.#sink.message(value);
  }

  /** Records an agent request; from generation 1 on, gives it an id the application cannot have seen before. */
  #mapIncoming(request: Record<string, unknown>): Record<string, unknown> {
    const original = request.id as JsonRpcId;
    const originalKey = key(original);
    if (originalKey === undefined) return request;
    if (this.number === 0) {
      this.#incoming.set(originalKey, original);
      return request;
    }
    const mapped = `acpkit-g${this.number}-${this.#nextMappedId++}`;
    this.#incoming.set(key(mapped)!, original);
    this.#outgoingIds.set(originalKey, key(mapped)!);
    return { ...request, id: mapped };
  }

  #mappedId(mappedKey: string): JsonRpcId {
    return mappedKey.slice(2);
  }
}
