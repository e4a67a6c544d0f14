/**
 * The output of a Streamable HTTP connection: one connection-scoped stream and one stream per session, each an
 * `OutboundQueue` read by at most one SSE response. Counts what is queued for the client across all of them, makes
 * the agent wait beyond `maxBufferedBytes`, and closes the connection for a client that reads nothing for
 * `maxOutputStallMs` while it is behind, or that leaves more sessions buffering than `maxBufferedSessionStreams`.
 * An agent that awaits its sends is also paced while a response is reading: from `PACE_HIGH_WATER_CHARS` queued it
 * waits for the reader's next take (so events leave while the agent works, instead of piling up in memory first);
 * a reader that takes nothing for `maxOutputStallMs` meanwhile closes the connection as above.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Connection and Session Model)
 */
import type { ResolvedLimits } from "./limits.js";
import { OutboundQueue } from "./outbound-queue.js";
import { ConnectionLimitError, Waiters, type OutputSink } from "./output-sink.js";

const RESOLVED = Promise.resolve();
/** Queued output (UTF-16 units) from which `whenRoom()` waits for a reading response's next take. */
export const PACE_HIGH_WATER_CHARS = 256 * 1024;
/** After the last session stream ended, how long the connection stream waits before it ends too. */
const SETTLE_MS = 50;

/** Why a stream cannot be opened. */
export type OpenStreamRefusal = "busy" | "too-many" | "closed";

/** Hooks of an `HttpOutbound`. */
export interface HttpOutboundHooks {
  /** A limit was broken: close the connection with this error. */
  onLimit(error: ConnectionLimitError): void;
  /** The number of open streams (SSE responses) changed. */
  onOpenStreams(count: number): void;
}

export class HttpOutbound implements OutputSink {
  readonly connectionStream: OutboundQueue;
  readonly #sessions = new Map<string, OutboundQueue>();
  readonly #room = new Waiters();
  #bufferedChars = 0;
  /** Session queues with no reader: they buffer for a client that may open them later. */
  #readerless = 0;
  #openSessionReaders = 0;
  #openReaders = 0;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #settleTimer: ReturnType<typeof setTimeout> | undefined;
  #finished = false;
  #aborted = false;

  constructor(
    private readonly limits: ResolvedLimits,
    private readonly hooks: HttpOutboundHooks,
  ) {
    this.connectionStream = new OutboundQueue(this.#onTake, (queue) => this.#onReaderChange(queue, undefined));
  }

  /** UTF-16 units queued for the client on all streams. */
  get bufferedChars(): number {
    return this.#bufferedChars;
  }

  get bufferedAmount(): number {
    return this.#bufferedChars;
  }

  get openStreams(): number {
    return this.#openReaders;
  }

  get backlogged(): boolean {
    return this.#bufferedChars >= this.limits.maxBufferedBytes;
  }

  /** Whether a session has a stream (open, or buffering for its client). */
  hasSession(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  deliver(text: string, sessionId: string | undefined): void {
    if (this.#aborted || this.#finished) return;
    const queue = sessionId === undefined ? this.connectionStream : this.#sessionQueue(sessionId);
    if (!queue.push(text)) return;
    this.#bufferedChars += text.length;
    if (this.#bufferedChars > this.limits.maxBufferedBytes + this.limits.maxMessageBytes) {
      throw new ConnectionLimitError(
        `the client is behind by ${this.#bufferedChars} characters of output (maxBufferedBytes ` +
          `${this.limits.maxBufferedBytes}) ` +
          "and the agent did not wait for it",
      );
    }
    if (this.backlogged) this.#armStall();
  }

  whenRoom(): Promise<void> {
    if (this.#finished || this.#aborted) return RESOLVED;
    if (this.backlogged) return this.#room.wait();
    if (this.#bufferedChars < PACE_HIGH_WATER_CHARS || !this.#reading()) return RESOLVED;
    this.#armStall();
    return this.#room.wait();
  }

  /** Whether a response is attached to a queue that holds output (the client is being sent something). */
  #reading(): boolean {
    if (this.connectionStream.hasReader && !this.connectionStream.isEmpty) return true;
    for (const queue of this.#sessions.values()) if (queue.hasReader && !queue.isEmpty) return true;
    return false;
  }

  /**
   * The queue an SSE response for `sessionId` (or the connection, when undefined) reads, or why it cannot: another
   * response reads it ("busy"), too many session streams are open ("too-many"), the connection is over ("closed").
   */
  openStream(sessionId: string | undefined): OutboundQueue | OpenStreamRefusal {
    if (this.#aborted || this.#finished) return "closed";
    if (sessionId === undefined) return this.connectionStream.hasReader ? "busy" : this.connectionStream;
    const existing = this.#sessions.get(sessionId);
    if (existing?.hasReader) return "busy";
    if (this.#openSessionReaders >= this.limits.maxOpenSessionStreams) return "too-many";
    return existing ?? this.#createSession(sessionId);
  }

  /**
   * Ends the streams after what is queued. Session streams end first; the connection stream ends once no session
   * stream is still being read (and a moment more), because clients treat the end of the connection stream as the end
   * of everything: a turn's last answer (say, `cancelled` at shutdown) must reach them first.
   */
  finish(): void {
    if (this.#finished || this.#aborted) return;
    this.#finished = true;
    for (const [sessionId, queue] of this.#sessions) {
      if (!queue.hasReader) this.#sessions.delete(sessionId);
      this.#endQueue(queue);
    }
    this.#endConnectionStreamWhenSessionsDone();
    this.#room.wakeAll();
    if (this.#openReaders === 0) {
      this.abort();
      return;
    }
    // Readers that are there get what is queued; one that does not take it in time is not kept forever (nor is the
    // process, for it: the timer is unref'd).
    this.#flushTimer = setTimeout(() => this.abort(), this.limits.maxOutputStallMs);
    (this.#flushTimer as { unref?: () => void }).unref?.();
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#finished = true;
    this.connectionStream.drop();
    for (const queue of this.#sessions.values()) queue.drop();
    this.#sessions.clear();
    this.#bufferedChars = 0;
    this.#clearTimers();
    this.#room.wakeAll();
  }

  #endConnectionStreamWhenSessionsDone(): void {
    if (this.#openSessionReaders > 0 || this.#settleTimer !== undefined || this.connectionStream.ended) return;
    this.#settleTimer = setTimeout(() => {
      this.#settleTimer = undefined;
      if (!this.#aborted) this.#endQueue(this.connectionStream);
    }, SETTLE_MS);
  }

  #endQueue(queue: OutboundQueue): void {
    if (queue.hasReader) queue.end();
    else this.#bufferedChars -= queue.drop();
  }

  #sessionQueue(sessionId: string): OutboundQueue {
    const existing = this.#sessions.get(sessionId);
    if (existing) return existing;
    if (this.#readerless >= this.limits.maxBufferedSessionStreams) {
      throw new ConnectionLimitError(
        `output for ${this.#readerless + 1} sessions is waiting for streams the client did not open ` +
          `(maxBufferedSessionStreams ${this.limits.maxBufferedSessionStreams})`,
      );
    }
    return this.#createSession(sessionId);
  }

  #createSession(sessionId: string): OutboundQueue {
    const queue = new OutboundQueue(this.#onTake, (changed) => this.#onReaderChange(changed, sessionId));
    this.#sessions.set(sessionId, queue);
    this.#readerless++;
    return queue;
  }

  readonly #onTake = (chars: number): void => {
    this.#bufferedChars -= chars;
    if (this.#stallTimer !== undefined) {
      clearTimeout(this.#stallTimer);
      this.#stallTimer = undefined;
      if (this.backlogged) this.#armStall();
    }
    if (!this.backlogged) this.#room.wakeAll();
  };

  #onReaderChange(queue: OutboundQueue, sessionId: string | undefined): void {
    if (this.#aborted) return;
    const attached = queue.hasReader;
    this.#openReaders += attached ? 1 : -1;
    if (this.#finished && sessionId !== undefined && !attached) this.#endConnectionStreamWhenSessionsDone();
    if (this.#finished && this.#openReaders === 0 && this.connectionStream.ended) {
      // The connection is over and its last reader left: nothing is waiting for what remains.
      this.abort();
      this.hooks.onOpenStreams(0);
      return;
    }
    if (sessionId !== undefined) {
      this.#openSessionReaders += attached ? 1 : -1;
      if (attached) this.#readerless--;
      else if (queue.isEmpty || queue.ended) {
        // Nothing waits on it (or nothing more will come): forget it; a later GET or message makes a new one.
        this.#bufferedChars -= queue.drop();
        if (this.#sessions.get(sessionId) === queue) this.#sessions.delete(sessionId);
      } else {
        this.#readerless++;
        if (this.#readerless > this.limits.maxBufferedSessionStreams) {
          this.hooks.onLimit(
            new ConnectionLimitError(
              `the client left ${this.#readerless} session streams with output waiting ` +
                `(maxBufferedSessionStreams ${this.limits.maxBufferedSessionStreams})`,
            ),
          );
        }
      }
    }
    this.hooks.onOpenStreams(this.#openReaders);
  }

  #armStall(): void {
    if (this.#stallTimer !== undefined) return;
    this.#stallTimer = setTimeout(() => {
      this.#stallTimer = undefined;
      this.hooks.onLimit(
        new ConnectionLimitError(
          `the client read none of its ${this.#bufferedChars} characters of waiting output for ` +
            `${this.limits.maxOutputStallMs} ms (maxOutputStallMs)`,
        ),
      );
    }, this.limits.maxOutputStallMs);
  }

  #clearTimers(): void {
    if (this.#stallTimer !== undefined) clearTimeout(this.#stallTimer);
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    if (this.#settleTimer !== undefined) clearTimeout(this.#settleTimer);
    this.#stallTimer = undefined;
    this.#flushTimer = undefined;
    this.#settleTimer = undefined;
  }
}
