/**
 * One outbound stream in memory: the agent's messages for one stream (the connection's or a session's), each with
 * its event id, read by at most one reader at a time, from a cursor. What a reader took stays for a while (the
 * retention window, bounded by `retainChars`) so that a client that lost the tail of a broken response can resume
 * right after the last event it got.
 *
 * Ids come from a counter shared by the connection's streams (`nextId`), so an id is unique within the connection
 * and increases along the stream; an id says where a client is even in a stream made anew.
 *
 * Positions are array indices: retained events are `[start, delivered)`, events no reader took yet are
 * `[delivered, length)`, and the reader takes from `read`. The owner's accounting counts only the second part
 * (`onTake` reports what a reader takes for the first time; `drop` returns what was never taken).
 */

/** Why a cursor cannot be read from: not an id of this stream, or older than what the stream keeps. */
export type CursorProblem = { kind: "malformed" | "ahead" | "expired"; message: string };

/** What a queue tells its reader. */
export interface QueueWaker {
  wake(): void;
}

/** A cursor as the client sent it: a decimal id, or undefined when it is not one. */
export function parseCursor(cursor: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(cursor)) return undefined;
  const value = Number(cursor);
  return Number.isSafeInteger(value) ? value : undefined;
}

export class RetainedQueue {
  #texts: string[] = [];
  #ids: number[] = [];
  #start = 0;
  #delivered = 0;
  #read = 0;
  #pendingChars = 0;
  #retainedChars = 0;
  /** Every event of this stream with an id up to this one is gone (or was never here). */
  #trimmedThrough: number;
  #lastId: number;
  #reader: QueueWaker | undefined;
  #ended = false;

  /**
   * @param nextId the connection's id counter
   * @param retainChars UTF-16 units of taken events kept for resumption
   * @param onTake called with the UTF-16 units a reader took for the first time
   * @param onReaderChange called after a reader attached or left
   */
  constructor(
    private readonly nextId: () => number,
    /** The id the counter is at (events after it may belong to this stream). */
    createdAt: number,
    private readonly retainChars: number,
    private readonly onTake: (chars: number) => void,
    private readonly onReaderChange?: (queue: RetainedQueue) => void,
  ) {
    this.#trimmedThrough = createdAt;
    this.#lastId = createdAt;
  }

  get hasReader(): boolean {
    return this.#reader !== undefined;
  }

  /** The attached reader, if any. */
  get reader(): QueueWaker | undefined {
    return this.#reader;
  }

  /** True when no reader took every event (nothing pending). */
  get isEmpty(): boolean {
    return this.#delivered === this.#texts.length;
  }

  /** True when the reader has something to take. */
  get hasUnread(): boolean {
    return this.#read < this.#texts.length;
  }

  /** True when taken events are kept for resumption. */
  get retains(): boolean {
    return this.#start < this.#delivered;
  }

  /** UTF-16 units no reader took yet. */
  get chars(): number {
    return this.#pendingChars;
  }

  /** UTF-16 units kept for resumption. */
  get retainedChars(): number {
    return this.#retainedChars;
  }

  /** The id of the last event, or the counter's value when the stream was made (no event yet). */
  get lastId(): number {
    return this.#lastId;
  }

  /** True once `end()` was called: the reader finishes after the last event. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Appends one message's JSON text with the next id; ignored once ended. Returns whether it was appended. */
  push(text: string): boolean {
    if (this.#ended) return false;
    const id = this.nextId();
    this.#texts.push(text);
    this.#ids.push(id);
    this.#lastId = id;
    this.#pendingChars += text.length;
    this.#reader?.wake();
    return true;
  }

  /**
   * Hands the reader's next events to `sink` (id and text), oldest first, until about `maxChars` are taken (at least
   * one when any is there). Returns the UTF-16 units taken.
   */
  take(maxChars: number, sink: (id: string, text: string) => void): number {
    const texts = this.#texts;
    const ids = this.#ids;
    const end = texts.length;
    let read = this.#read;
    let chars = 0;
    while (read < end && (chars === 0 || chars < maxChars)) {
      const text = texts[read]!;
      sink(String(ids[read]!), text);
      chars += text.length;
      read++;
    }
    this.#read = read;
    if (read > this.#delivered) {
      let fresh = 0;
      for (let i = this.#delivered; i < read; i++) fresh += texts[i]!.length;
      this.#delivered = read;
      this.#pendingChars -= fresh;
      this.#retainedChars += fresh;
      this.#trim();
      this.onTake(fresh);
    }
    return chars;
  }

  /**
   * Attaches `reader`, at `cursor` (a client's `Last-Event-ID`: it takes the events after that one, and displaces a
   * reader already attached) or after the last event any reader took (refused with "busy" when a reader is
   * attached). Returns a problem for a cursor that is not an id of this stream or that the stream no longer keeps.
   */
  attach(reader: QueueWaker, cursor?: string): "busy" | CursorProblem | undefined {
    let position = this.#delivered;
    if (cursor !== undefined) {
      const found = this.#position(cursor);
      if (typeof found !== "number") return found;
      position = found;
    } else if (this.#reader !== undefined) return "busy";
    const displaced = this.#reader;
    if (position > this.#delivered) {
      // The client has these already (it says so): they count as taken.
      let fresh = 0;
      for (let i = this.#delivered; i < position; i++) fresh += this.#texts[i]!.length;
      this.#delivered = position;
      this.#pendingChars -= fresh;
      this.#retainedChars += fresh;
      this.onTake(fresh);
    }
    this.#read = position;
    this.#reader = reader;
    this.#trim();
    // A reader taking over from another: one in, one out, nothing for the owner to count.
    if (displaced !== undefined) displaced.wake();
    else this.onReaderChange?.(this);
    return undefined;
  }

  /** Detaches `reader` if it is the one attached. */
  detach(reader: QueueWaker): void {
    if (this.#reader !== reader) return;
    this.#reader = undefined;
    this.#read = this.#delivered;
    this.#trim();
    this.onReaderChange?.(this);
  }

  /** No more messages: the reader ends once it has taken what is there. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#reader?.wake();
  }

  /** Drops everything (kept and pending) and ends; returns the UTF-16 units no reader took (not given to `onTake`). */
  drop(): number {
    const dropped = this.#pendingChars;
    this.#texts = [];
    this.#ids = [];
    this.#start = this.#delivered = this.#read = 0;
    this.#pendingChars = this.#retainedChars = 0;
    this.#trimmedThrough = this.#lastId;
    this.end();
    return dropped;
  }

  /** The index of the first event after `cursor`, or why there is none. */
  #position(cursor: string): number | CursorProblem {
    const id = parseCursor(cursor);
    if (id === undefined)
      return {
        kind: "malformed",
        message: `Last-Event-ID "${cursor.slice(0, 64)}" is not an event id of this server (a decimal number)`,
      };
    if (id > this.#lastId)
      return {
        kind: "ahead",
        message: `Last-Event-ID ${id} is not an event of this stream (its last event is ${this.#lastId}); send the id of the last event received on this same stream`,
      };
    if (id < this.#trimmedThrough)
      return {
        kind: "expired",
        message: `the events after Last-Event-ID ${id} are no longer kept (this stream keeps events after ${this.#trimmedThrough}); open the stream without Last-Event-ID and reload the session (session/load or session/resume) to get its state back`,
      };
    // The first retained or pending event with a greater id (ids increase along the stream).
    const ids = this.#ids;
    let low = this.#start;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle]! <= id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Drops the oldest taken events while more than `retainChars` are kept (never what the reader has yet to take). */
  #trim(): void {
    if (this.#retainedChars <= this.retainChars) return;
    const limit = this.#reader === undefined ? this.#delivered : Math.min(this.#read, this.#delivered);
    let index = this.#start;
    let chars = this.#retainedChars;
    while (index < limit && chars > this.retainChars) chars -= this.#texts[index++]!.length;
    this.#dropBefore(index);
  }

  #dropBefore(index: number): void {
    if (index <= this.#start) return;
    const texts = this.#texts;
    for (let i = this.#start; i < index; i++) {
      this.#retainedChars -= texts[i]!.length;
      texts[i] = "";
    }
    this.#trimmedThrough = this.#ids[index - 1]!;
    this.#start = index;
    if (index === texts.length) {
      this.#texts = [];
      this.#ids = [];
      this.#start = this.#delivered = this.#read = 0;
    } else if (index >= 1024 && index * 2 >= texts.length) {
      this.#texts = texts.slice(index);
      this.#ids = this.#ids.slice(index);
      this.#delivered -= index;
      this.#read -= index;
      this.#start = 0;
    }
  }
}
