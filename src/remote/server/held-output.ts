/**
 * A connection's output held back while something the client must not outrun is written elsewhere: in a cluster,
 * the answer that gives a WebSocket client a new session's id waits until the other nodes can find the session (a
 * client that hands the id to another client, which attaches through another node, must never be told "not found").
 * Deliveries made while held are queued in order and passed on once every hold has ended; otherwise it passes
 * everything straight through.
 */
import { ConnectionLimitError, type OutputSink } from "./output-sink.js";

export class HeldOutput implements OutputSink {
  #holds = 0;
  #queued: { text: string; sessionId: string | undefined }[] = [];
  #ended = false;

  constructor(
    readonly inner: OutputSink,
    /** Called when a queued delivery, passed on later, goes past a limit (the connection closes). */
    private readonly limitExceeded: (error: ConnectionLimitError) => void,
  ) {}

  /** Holds deliveries until `until` settles (fulfilled or rejected: the hold is a wait, never a failure). */
  hold(until: Promise<unknown>): void {
    this.#holds++;
    const release = () => {
      this.#holds--;
      if (this.#holds === 0) this.#flush();
    };
    until.then(release, release);
  }

  get held(): boolean {
    return this.#holds > 0;
  }

  deliver(text: string, sessionId: string | undefined): void {
    if (this.#holds > 0 || this.#queued.length > 0) this.#queued.push({ text, sessionId });
    else this.inner.deliver(text, sessionId);
  }

  get backlogged(): boolean {
    return this.inner.backlogged;
  }

  get bufferedAmount(): number {
    return this.inner.bufferedAmount;
  }

  whenRoom(): Promise<void> {
    return this.inner.whenRoom();
  }

  finish(code?: number, reason?: string): void {
    this.#ended = true;
    this.#flush();
    this.inner.finish(code, reason);
  }

  abort(code?: number, reason?: string): void {
    this.#ended = true;
    this.#queued = [];
    this.inner.abort(code, reason);
  }

  #flush(): void {
    const queued = this.#queued;
    this.#queued = [];
    try {
      for (const { text, sessionId } of queued) this.inner.deliver(text, sessionId);
    } catch (error) {
      if (!(error instanceof ConnectionLimitError)) throw error;
      if (!this.#ended) this.limitExceeded(error);
    }
  }
}
