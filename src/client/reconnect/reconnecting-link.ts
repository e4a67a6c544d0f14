/**
 * A client link that survives its transport dropping: when the link under it ends without the application
 * closing it, it opens a new one (backoff with jitter, bounded attempts), sends the application's `initialize`
 * again (and its last successful `authenticate`), reattaches every open session with `session/resume` when the
 * agent advertises it, else `session/load`, and then carries on. The application keeps its connection object.
 *
 * Contracts:
 * - Requests in flight when the link drops cannot get their response: they fail at once with a
 *   `ResponseLostError` (a prompt turn included: the agent may or may not have finished it). Nothing hangs.
 * - Messages the application sends while reconnecting are queued (up to `maxQueuedMessages`) and sent, in order,
 *   once every session is reattached; answers to agent requests of the dropped link are dropped.
 * - The history a `session/load` replays is held back by default (the application has seen it); the
 *   `reattached` event says how many updates were held back. Updates sent while the link was down are lost:
 *   ACP v1 has no replay.
 * - Every step is reported through `onEvent`: `disconnected`, `reconnecting` (attempt N, delay),
 *   `attempt_failed`, `reconnected`, `reattached` / `reattach_failed` (per session), `gave_up`. After `gave_up`
 *   the link ends with a `TransportFailedError` and the connection closes as it would without reconnecting.
 * - The first link is not retried: if it cannot be opened, the link ends with that error.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (durability: in v1 a client
 * reconnects with a new `initialize`, then `session/load`)
 */
import { LINK, type LinkReceiver, type MessageLink, type Stream } from "../../jsonrpc/link.js";
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { peerSupports } from "../../protocol/capabilities.js";
import { LinkLifecycle } from "../../transports/link-lifecycle.js";
import { linkFromStream } from "../../transports/stream-link.js";
import { backoffDelay, pause, type BackoffOptions } from "./backoff.js";
import { Generation } from "./generation.js";
import { SessionLedger } from "./session-ledger.js";

/** What happened to a reconnecting link. */
export type ReconnectEvent =
  | { type: "disconnected"; error: unknown; lostRequests: string[] }
  | { type: "reconnecting"; attempt: number; delayMs: number }
  | { type: "attempt_failed"; attempt: number; error: unknown }
  | { type: "reconnected"; attempt: number }
  | { type: "reattached"; sessionId: string; method: "session/load" | "session/resume"; heldBackUpdates: number }
  | { type: "reattach_failed"; sessionId: string; error: unknown }
  | { type: "gave_up"; attempts: number; error: unknown };

/** Options of a reconnecting link. */
export interface ReconnectOptions extends BackoffOptions {
  /** Sees every step (see `ReconnectEvent`). Must not throw. */
  onEvent?: (event: ReconnectEvent) => void;
  /** How sessions are reattached: `auto` (default: resume when advertised, else load), `load`, `resume`, `none`. */
  reattach?: "auto" | "load" | "resume" | "none";
  /** Pass on the history a `session/load` replays instead of holding it back. Default false. */
  replayHistory?: boolean;
  /** How long one attempt (open, initialize, authenticate, reattach) may take, in ms. Default 30000. */
  attemptTimeoutMs?: number;
  /** Messages queued while reconnecting before `send` refuses more. Default 1000. */
  maxQueuedMessages?: number;
}

type State = "connecting" | "up" | "reconnecting" | "closed";

/** What links with flow control (acpkit's remote and stdio links) add to `MessageLink`. */
interface FlowControl {
  readonly pendingOutput: number;
  pauseInput(): void;
  resumeInput(): void;
}

/** See the file comment. */
export class ReconnectingLink implements MessageLink {
  readonly #open: () => Stream | Promise<Stream>;
  readonly #options: ReconnectOptions;
  readonly #ledger = new SessionLedger();
  readonly #stop = new AbortController();
  #first: Stream | undefined;
  /** The receiver, and the end: no more links, nothing queued, the live one closed when it failed. */
  readonly #life = new LinkLifecycle((cause) => {
    this.#state = "closed";
    this.#queue = [];
    this.#stop.abort();
    if (this.#live !== undefined && cause !== undefined) void this.#live.link.close();
    this.#live = undefined;
  });
  #live: Generation | undefined;
  #generations = 0;
  #state: State = "connecting";
  #queue: AnyMessage[] = [];
  #inputPaused = false;

  constructor(open: () => Stream | Promise<Stream>, options: ReconnectOptions = {}, first?: Stream) {
    this.#open = open;
    this.#options = options;
    this.#first = first;
  }

  /** Where the link stands: connecting (the first link), up, reconnecting, or closed. */
  get state(): State {
    return this.#state;
  }

  /** The sessions the link would reattach now. */
  get sessions(): string[] {
    return [...this.#ledger.sessions.keys()];
  }

  start(receiver: LinkReceiver): void {
    this.#life.start(receiver);
    void this.#connectFirst();
  }

  send(message: AnyMessage): void {
    if (this.#state === "closed") return;
    if (!("method" in message)) {
      // An answer to an agent request: only the link that asked can take it.
      if (this.#live === undefined || !this.#live.answer(message)) return;
      return;
    }
    if (this.#state === "up" && this.#live !== undefined) this.#live.forward(message);
    else {
      const max = this.#options.maxQueuedMessages ?? 1000;
      if (this.#queue.length >= max) {
        throw new TransportFailedError(
          `The link to the agent is reconnecting and ${max} messages are already queued; wait for it (see the ` +
            `reconnect events) or raise maxQueuedMessages.`,
        );
      }
      this.#queue.push(message);
    }
    this.#ledger.sent(message);
  }

  /** The live link's size limit (undefined while reconnecting, or when it has none). */
  get maxMessageBytes(): number | undefined {
    return this.#live?.link.maxMessageBytes;
  }

  /** Bytes the live link has not handed to the network yet (0 while reconnecting or when the link cannot say). */
  get pendingOutput(): number {
    return (this.#live?.link as Partial<FlowControl> | undefined)?.pendingOutput ?? 0;
  }

  /** Stops delivery of incoming messages (the live link and every later one) until `resumeInput`. */
  pauseInput(): void {
    this.#inputPaused = true;
    (this.#live?.link as Partial<FlowControl> | undefined)?.pauseInput?.();
  }

  resumeInput(): void {
    this.#inputPaused = false;
    (this.#live?.link as Partial<FlowControl> | undefined)?.resumeInput?.();
  }

  drain(): Promise<void> {
    return this.#state === "up" && this.#live !== undefined ? this.#live.link.drain() : Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#state === "closed") return Promise.resolve();
    const live = this.#live;
    this.#finish(undefined);
    return live === undefined ? Promise.resolve() : live.link.close();
  }

  async #connectFirst(): Promise<void> {
    try {
      const stream = this.#first ?? (await this.#open());
      this.#first = undefined;
      if (this.#state === "closed") return void linkOf(stream).close();
      this.#live = this.#adopt(stream);
      this.#up();
    } catch (error) {
      this.#finish(error);
    }
  }

  #adopt(stream: Stream): Generation {
    const link = linkOf(stream);
    if (this.#inputPaused) (link as Partial<FlowControl>).pauseInput?.();
    return new Generation(this.#generations++, link, {
      message: (value) => {
        this.#ledger.received(value);
        this.#life.receiver?.message(value);
      },
      problem: (problem) => this.#life.receiver?.problem(problem),
      closed: (generation, cause) => this.#linkEnded(generation, cause),
    });
  }

  #up(): void {
    this.#state = "up";
    const queued = this.#queue;
    this.#queue = [];
    for (const message of queued) {
      try {
        this.#live!.forward(message);
      } catch (error) {
        if ("id" in message)
          this.#life.receiver?.problem({
            kind: "lost",
            ids: [message.id],
            detail: `it could not be sent after reconnecting (${String(error)})`,
            cause: error,
          });
      }
    }
  }

  #linkEnded(generation: Generation, cause: unknown): void {
    if (generation !== this.#live || this.#state !== "up") return;
    this.#live = undefined;
    this.#state = "reconnecting";
    const lostRequests = this.#ledger.outstandingMethods();
    const lost = this.#ledger.takeOutstanding();
    const reason =
      cause === undefined ? "the agent ended the connection" : cause instanceof Error ? cause.message : String(cause);
    if (lost.length > 0)
      this.#life.receiver?.problem({
        kind: "lost",
        ids: lost,
        detail: `the link to the agent dropped while it was in flight (${reason}); reconnecting`,
        cause,
      });
    this.#emit({ type: "disconnected", error: cause, lostRequests });
    void this.#reconnect();
  }

  async #reconnect(): Promise<void> {
    const maxAttempts = this.#options.maxAttempts ?? 5;
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const delayMs = backoffDelay(attempt, this.#options);
      this.#emit({ type: "reconnecting", attempt, delayMs });
      if (!(await pause(delayMs, this.#stop.signal))) return;
      try {
        const generation = await this.#attempt(attempt);
        if (this.#state === "closed") return void generation.link.close();
        this.#live = generation;
        this.#up();
        return;
      } catch (error) {
        if (this.#state === "closed") return;
        lastError = error;
        this.#emit({ type: "attempt_failed", attempt, error });
      }
    }
    this.#emit({ type: "gave_up", attempts: maxAttempts, error: lastError });
    const detail = lastError instanceof Error ? lastError.message : String(lastError);
    this.#finish(
      new TransportFailedError(
        `Gave up reconnecting to the agent after ${maxAttempts} attempts; the last one failed: ${detail}`,
        { cause: lastError },
      ),
    );
  }

  /** One attempt: a new link, initialize, authenticate, reattach every session. Rejects when the link fails. */
  async #attempt(attempt: number): Promise<Generation> {
    const timeoutMs = this.#options.attemptTimeoutMs ?? 30_000;
    const stream = await withTimeout(
      Promise.resolve().then(() => this.#open()),
      timeoutMs,
      "opening the link",
    );
    const generation = this.#adopt(stream);
    this.#live = generation;
    try {
      if (this.#ledger.initializeParams === undefined) {
        this.#emit({ type: "reconnected", attempt });
        return generation;
      }
      const init = (await generation.request("initialize", this.#ledger.initializeParams, timeoutMs)) as {
        agentCapabilities?: unknown;
      };
      this.#emit({ type: "reconnected", attempt });
      if (this.#ledger.authenticateParams !== undefined)
        await generation.request("authenticate", this.#ledger.authenticateParams, timeoutMs);
      for (const session of [...this.#ledger.sessions.values()]) {
        const method = this.#reattachMethod(init?.agentCapabilities);
        if (method === undefined) {
          this.#ledger.sessions.delete(session.sessionId);
          this.#emit({
            type: "reattach_failed",
            sessionId: session.sessionId,
            error: new Error("the agent advertises neither session/resume nor session/load (or reattach is off)"),
          });
          continue;
        }
        const hold = method === "session/load" && this.#options.replayHistory !== true;
        if (hold) generation.mute(session.sessionId);
        try {
          await generation.request(method, SessionLedger.attachParams(session), timeoutMs);
          this.#emit({
            type: "reattached",
            sessionId: session.sessionId,
            method,
            heldBackUpdates: hold ? generation.unmute(session.sessionId) : 0,
          });
        } catch (error) {
          if (hold) generation.unmute(session.sessionId);
          if (generation.isClosed) throw error;
          this.#ledger.sessions.delete(session.sessionId);
          this.#emit({ type: "reattach_failed", sessionId: session.sessionId, error });
        }
      }
      return generation;
    } catch (error) {
      if (this.#live === generation) this.#live = undefined;
      void generation.link.close();
      throw error;
    }
  }

  #reattachMethod(capabilities: unknown): "session/load" | "session/resume" | undefined {
    const mode = this.#options.reattach ?? "auto";
    if (mode === "none") return undefined;
    const canResume = peerSupports("session/resume", capabilities, "agent");
    const canLoad = peerSupports("session/load", capabilities, "agent");
    if (mode === "resume") return canResume ? "session/resume" : undefined;
    if (mode === "load") return canLoad ? "session/load" : undefined;
    return canResume ? "session/resume" : canLoad ? "session/load" : undefined;
  }

  #emit(event: ReconnectEvent): void {
    try {
      this.#options.onEvent?.(event);
    } catch {
      // A listener must not break the link.
    }
  }

  /** The link is over: `closed(cause)` follows in a microtask. */
  #finish(cause: unknown): void {
    this.#life.finishLater(cause);
  }
}

function linkOf(stream: Stream): MessageLink {
  return stream[LINK] ?? linkFromStream(stream);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransportFailedError(`Timed out after ${ms} ms ${what}.`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
