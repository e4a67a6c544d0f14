/**
 * `PermissionBroker`: runs a `PermissionPolicy` for every `session/request_permission`, tracks the pending ones per
 * session, and answers them `cancelled` when the client cancels the session's turn.
 *
 * See protocol docs: [Cancellation](https://agentclientprotocol.com/protocol/prompt-turn#cancellation)
 */
import type { RequestPermissionRequest, RequestPermissionResponse, ToolCallUpdate } from "../../protocol/index.js";
import { CANCELLED_RESPONSE, failClosed, isValidAnswer, type PermissionPolicy } from "./permission-policy.js";

/** Options of `PermissionBroker`. */
export interface PermissionBrokerOptions {
  /**
   * What the client already knows of a tool call (e.g. `(s, id) => router.get(s)?.toolCall(id)`). Agents often send
   * only the id and a few fields in the permission request; the policy then sees the known fields (kind, title,
   * locations, rawInput) with the request's own fields on top.
   */
  lookupToolCall?: (sessionId: string, toolCallId: string) => object | undefined;
  /** Hears a policy's failure (it is answered fail-closed). Silent by default. */
  onPolicyError?: (error: unknown, request: RequestPermissionRequest) => void;
}

/** A request waiting for its policy. */
export interface PendingPermission {
  readonly request: RequestPermissionRequest;
  /** When it arrived (ms since the epoch). */
  readonly since: number;
}

interface Pending extends PendingPermission {
  readonly controller: AbortController;
  readonly settle: (response: RequestPermissionResponse) => void;
}

/**
 * Contracts:
 * - `request` answers exactly once: the policy's answer when it is valid (`cancelled`, or an offered option id);
 *   fail-closed (`reject_once`, else `reject_always`, else `cancelled`) when the policy throws or names an option the
 *   agent did not offer; `cancelled` when `cancelSession` (or `close`, or the caller's signal) comes first.
 * - `cancelSession(sessionId)` answers every pending request of that session `cancelled` at once and aborts their
 *   policies' signals (the spec: the client MUST answer pending permission requests `cancelled` after
 *   `session/cancel`). Requests arriving later are asked normally: the agent may still ask after a cancel.
 * - The policy never sees the same request twice and its late answers are ignored.
 *
 * Use: `requestPermission: (params) => broker.request(params)` in your `Client`, and call
 * `broker.cancelSession(sessionId)` when you send `session/cancel`.
 */
export class PermissionBroker {
  readonly #policy: PermissionPolicy;
  readonly #options: PermissionBrokerOptions;
  readonly #pending = new Map<string, Set<Pending>>();
  readonly #answerListeners = new Set<
    (request: RequestPermissionRequest, response: RequestPermissionResponse) => void
  >();

  constructor(policy: PermissionPolicy, options: PermissionBrokerOptions = {}) {
    this.#policy = policy;
    this.#options = options;
  }

  /** Answers one permission request (see the class contract). `signal` aborts it with `cancelled`. */
  request(request: RequestPermissionRequest, signal?: AbortSignal): Promise<RequestPermissionResponse> {
    const seen = this.#enrich(request);
    return new Promise<RequestPermissionResponse>((resolve) => {
      const controller = new AbortController();
      let done = false;
      const settle = (response: RequestPermissionResponse) => {
        if (done) return;
        done = true;
        this.#remove(request.sessionId, entry);
        signal?.removeEventListener("abort", onAbort);
        resolve(response);
        for (const listener of this.#answerListeners) {
          try {
            listener(seen, response);
          } catch {
            // a listener's failure never changes the answer
          }
        }
      };
      const entry: Pending = { request, since: Date.now(), controller, settle };
      const onAbort = () => this.#cancel(entry, signal?.reason);
      let set = this.#pending.get(request.sessionId);
      if (set === undefined) this.#pending.set(request.sessionId, (set = new Set()));
      set.add(entry);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      Promise.resolve()
        .then(() => this.#policy(seen, { signal: controller.signal }))
        .then(
          (response) => settle(isValidAnswer(request, response) ? response : failClosed(request)),
          (error: unknown) => {
            if (done) return;
            this.#options.onPolicyError?.(error, request);
            settle(failClosed(request));
          },
        );
    });
  }

  /**
   * Hears every answer as it is given (the request as the policy saw it, the response sent), e.g. to let a grant
   * cover the client's own host accesses (`brokerGate`). Returns a function that stops listening.
   */
  onAnswer(listener: (request: RequestPermissionRequest, response: RequestPermissionResponse) => void): () => void {
    this.#answerListeners.add(listener);
    return () => this.#answerListeners.delete(listener);
  }

  /** Answers every pending request of `sessionId` `cancelled`; returns how many there were. */
  cancelSession(sessionId: string): number {
    const set = this.#pending.get(sessionId);
    if (set === undefined) return 0;
    const entries = [...set];
    for (const entry of entries)
      this.#cancel(entry, new Error(`The prompt turn of session ${sessionId} was cancelled.`));
    return entries.length;
  }

  /** The pending requests of one session, or of all sessions. */
  pending(sessionId?: string): PendingPermission[] {
    const sets =
      sessionId === undefined ? [...this.#pending.values()] : [this.#pending.get(sessionId) ?? new Set<Pending>()];
    return sets.flatMap((set) => [...set].map(({ request, since }) => ({ request, since })));
  }

  /** Answers everything pending `cancelled` (the connection is going away). */
  close(): void {
    for (const sessionId of [...this.#pending.keys()]) this.cancelSession(sessionId);
  }

  #cancel(entry: Pending, reason: unknown): void {
    entry.settle(CANCELLED_RESPONSE);
    entry.controller.abort(reason);
  }

  #remove(sessionId: string, entry: Pending): void {
    const set = this.#pending.get(sessionId);
    if (set === undefined) return;
    set.delete(entry);
    if (set.size === 0) this.#pending.delete(sessionId);
  }

  #enrich(request: RequestPermissionRequest): RequestPermissionRequest {
    const known = this.#options.lookupToolCall?.(request.sessionId, request.toolCall.toolCallId);
    if (known === undefined) return request;
    const toolCall: Record<string, unknown> = { ...known };
    for (const [key, value] of Object.entries(request.toolCall))
      if (value !== undefined && value !== null) toolCall[key] = value;
    delete toolCall.cancelled;
    return { ...request, toolCall: toolCall as ToolCallUpdate };
  }
}
