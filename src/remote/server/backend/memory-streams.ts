/**
 * The output of a Streamable HTTP connection in memory: one connection-scoped stream and one stream per session, each
 * a `RetainedQueue` read by at most one SSE response at a time, from a cursor. Counts what is queued for the client
 * across all of them, makes the agent wait beyond `maxBufferedBytes`, and closes the connection for a client that
 * reads nothing for `maxOutputStallMs` while it is behind, or that leaves more sessions buffering than
 * `maxBufferedSessionStreams`. An agent that awaits its sends is also paced while a response is reading: from
 * `PACE_HIGH_WATER_CHARS` queued it waits for the reader's next take (so events leave while the agent works, instead
 * of piling up in memory first); a reader that takes nothing for `maxOutputStallMs` meanwhile closes the connection.
 *
 * What readers took stays for resumption (`maxRetainedBytes` of SSE per stream, not counted as buffered): a session
 * stream whose reader left keeps it, up to `RETAINING_STREAMS` such streams per connection (the least recently read
 * go first).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Connection and Session Model)
 */
import type { ResolvedLimits } from "../limits.js";
import { ConnectionLimitError, Waiters, type OutputSink } from "../output-sink.js";
import type { Refusal, StreamReader } from "./backend.js";
import { RetainedQueue, type QueueWaker } from "./retained-queue.js";

const RESOLVED = Promise.resolve();
/** Queued output (UTF-16 units) from which `whenRoom()` waits for a reading response's next take. */
export const PACE_HIGH_WATER_CHARS = 256 * 1024;
/** After the last session stream ended, how long the connection stream waits before it ends too. */
const SETTLE_MS = 50;
/** Session streams without a reader that keep taken events for resumption, per connection. */
export const RETAINING_STREAMS = 64;

/** Hooks of a `MemoryStreams`. */
export interface MemoryStreamsHooks {
  /** A limit was broken: close the connection with this error. */
  onLimit(error: ConnectionLimitError): void;
  /** The number of open streams (SSE responses) changed. */
  onOpenStreams(count: number): void;
}

export class MemoryStreams implements OutputSink {
  readonly connectionStream: RetainedQueue;
  readonly #sessions = new Map<string, RetainedQueue>();
  /** Sessions whose stream has no reader and keeps only taken events, least recently read first. */
  readonly #retaining = new Set<string>();
  readonly #room = new Waiters();
  /** The last event id given out on any of the connection's streams. */
  #lastId = 0;
  #bufferedChars = 0;
  /** Session queues with no reader (not counting `#retaining`): they buffer for a client that may open them later. */
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
    private readonly hooks: MemoryStreamsHooks,
  ) {
    this.connectionStream = this.#queue(undefined);
  }

  /** UTF-16 units queued for the client on all streams (not counting what is kept for resumption). */
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

  /** Whether a session has a stream (open, buffering for its client, or keeping events for resumption). */
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
        `the client is behind by ${this.#bufferedChars} characters of output (maxBufferedBytes ${this.limits.maxBufferedBytes}) ` +
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
    if (this.connectionStream.hasReader && this.connectionStream.hasUnread) return true;
    for (const queue of this.#sessions.values()) if (queue.hasReader && queue.hasUnread) return true;
    return false;
  }

  /**
   * Opens a reader on the stream of `sessionId` (or the connection's, when undefined), at `cursor` when given; or
   * says why not: another response reads it and no cursor was given (409), too many session streams are open (429),
   * the connection is over (404), the cursor is not one of the stream's ids (400) or is no longer kept (410).
   */
  openStream(sessionId: string | undefined, cursor?: string): StreamReader | Refusal {
    if (this.#aborted || this.#finished) return GONE;
    let queue: RetainedQueue;
    if (sessionId === undefined) queue = this.connectionStream;
    else {
      const existing = this.#sessions.get(sessionId);
      if (existing?.hasReader && cursor === undefined) return busy(sessionId);
      if (!existing?.hasReader && this.#openSessionReaders >= this.limits.maxOpenSessionStreams) {
        return {
          status: 429,
          message: `Too Many Requests: ${this.limits.maxOpenSessionStreams} session streams are open on this connection (maxOpenSessionStreams)`,
        };
      }
      if (existing === undefined) queue = this.#createSession(sessionId);
      else {
        // A stream kept for resumption is counted as readerless again until the reader attaches.
        if (this.#retaining.delete(sessionId)) this.#readerless++;
        queue = existing;
      }
    }
    const reader = new MemoryStreamReader(queue);
    const problem = queue.attach(reader, cursor);
    if (problem === undefined) return reader;
    if (sessionId !== undefined && !queue.hasReader) this.#settleReaderless(queue, sessionId);
    if (problem === "busy") return busy(sessionId);
    return {
      status: problem.kind === "expired" ? 410 : 400,
      message: `${STATUS_TEXT[problem.kind]}: ${problem.message}`,
    };
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
    this.#retaining.clear();
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
    this.#retaining.clear();
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

  #endQueue(queue: RetainedQueue): void {
    if (queue.hasReader) queue.end();
    else this.#bufferedChars -= queue.drop();
  }

  #sessionQueue(sessionId: string): RetainedQueue {
    const existing = this.#sessions.get(sessionId);
    if (existing) {
      if (this.#retaining.delete(sessionId)) {
        // Kept for resumption only until now: it buffers for its client again.
        this.#checkReaderless();
        this.#readerless++;
      }
      return existing;
    }
    this.#checkReaderless();
    return this.#createSession(sessionId);
  }

  #checkReaderless(): void {
    if (this.#readerless >= this.limits.maxBufferedSessionStreams) {
      throw new ConnectionLimitError(
        `output for ${this.#readerless + 1} sessions is waiting for streams the client did not open (maxBufferedSessionStreams ${this.limits.maxBufferedSessionStreams})`,
      );
    }
  }

  #createSession(sessionId: string): RetainedQueue {
    const queue = this.#queue(sessionId);
    this.#sessions.set(sessionId, queue);
    this.#readerless++;
    return queue;
  }

  #queue(sessionId: string | undefined): RetainedQueue {
    return new RetainedQueue(this.#nextId, this.#lastId, this.limits.maxRetainedBytes, this.#onTake, (changed) =>
      this.#onReaderChange(changed, sessionId),
    );
  }

  readonly #nextId = (): number => ++this.#lastId;

  readonly #onTake = (chars: number): void => {
    this.#bufferedChars -= chars;
    if (this.#stallTimer !== undefined) {
      clearTimeout(this.#stallTimer);
      this.#stallTimer = undefined;
      if (this.backlogged) this.#armStall();
    }
    if (!this.backlogged) this.#room.wakeAll();
  };

  #onReaderChange(queue: RetainedQueue, sessionId: string | undefined): void {
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
      else {
        this.#readerless++;
        this.#settleReaderless(queue, sessionId);
      }
    }
    this.hooks.onOpenStreams(this.#openReaders);
  }

  /**
   * A session queue without a reader (counted in `#readerless`): forgotten when nothing is in it or nothing more will
   * come, kept for resumption when it holds only taken events, left buffering (within `maxBufferedSessionStreams`)
   * when it holds events no reader took.
   */
  #settleReaderless(queue: RetainedQueue, sessionId: string): void {
    if (queue.ended || (queue.isEmpty && !queue.retains)) {
      this.#readerless--;
      this.#bufferedChars -= queue.drop();
      if (this.#sessions.get(sessionId) === queue) this.#sessions.delete(sessionId);
      return;
    }
    if (queue.isEmpty) {
      this.#readerless--;
      this.#retaining.add(sessionId);
      if (this.#retaining.size > RETAINING_STREAMS) {
        // Forgotten with what it kept: a cursor from before is then older than the stream made anew (410).
        const oldest = this.#retaining.values().next().value!;
        this.#retaining.delete(oldest);
        this.#sessions.get(oldest)?.drop();
        this.#sessions.delete(oldest);
      }
      return;
    }
    if (this.#readerless > this.limits.maxBufferedSessionStreams) {
      this.hooks.onLimit(
        new ConnectionLimitError(
          `the client left ${this.#readerless} session streams with output waiting (maxBufferedSessionStreams ${this.limits.maxBufferedSessionStreams})`,
        ),
      );
    }
  }

  #armStall(): void {
    if (this.#stallTimer !== undefined) return;
    this.#stallTimer = setTimeout(() => {
      this.#stallTimer = undefined;
      this.hooks.onLimit(
        new ConnectionLimitError(
          `the client read none of its ${this.#bufferedChars} characters of waiting output for ${this.limits.maxOutputStallMs} ms (maxOutputStallMs)`,
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

const GONE: Refusal = {
  status: 404,
  message:
    "Not Found: unknown Acp-Connection-Id (it ended, or never existed); POST initialize to start a new connection",
};

const STATUS_TEXT = { malformed: "Bad Request", ahead: "Bad Request", expired: "Gone" } as const;

function busy(sessionId: string | undefined): Refusal {
  const what = sessionId === undefined ? "the connection stream" : `the stream of session "${sessionId}"`;
  return {
    status: 409,
    message: `Conflict: ${what} is already open in another request; one reader per stream (a client resuming after a break sends Last-Event-ID, which takes the stream over)`,
  };
}

/** A reader of one in-memory stream: what an SSE response body reads. */
export class MemoryStreamReader implements StreamReader, QueueWaker {
  readonly #queue: RetainedQueue;
  #waiting: (() => void) | undefined;
  #released = false;

  constructor(queue: RetainedQueue) {
    this.#queue = queue;
  }

  /** True while this reader holds its stream (not released, not displaced by a resuming one). */
  get #attached(): boolean {
    return !this.#released && this.#queue.reader === this;
  }

  get ended(): boolean {
    if (!this.#attached) return true;
    return this.#queue.ended && !this.#queue.hasUnread;
  }

  take(maxChars: number): Uint8Array | undefined {
    if (!this.#attached) return undefined;
    return this.#queue.take(maxChars);
  }

  wait(): Promise<void> {
    if (this.ended || this.#queue.hasUnread) return RESOLVED;
    return new Promise<void>((resolve) => (this.#waiting = resolve));
  }

  wake(): void {
    const resolve = this.#waiting;
    this.#waiting = undefined;
    resolve?.();
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#queue.detach(this);
    this.wake();
  }
}
