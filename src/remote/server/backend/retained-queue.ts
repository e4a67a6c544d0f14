/**
 * One outbound stream in memory: the agent's messages for one stream (the connection's or a session's), each with
 * its event id, read by at most one reader at a time, from a cursor. What a reader took stays for a while (the
 * retention window, bounded by `retainBytes`) so that a client that lost the tail of a broken response can resume
 * right after the last event it got.
 *
 * Ids come from a counter shared by the connection's streams (`nextId`), so an id is unique within the connection
 * and increases along the stream; an id says where a client is even in a stream made anew.
 *
 * Events no reader took yet are JSON texts (counted by the owner: `onTake` reports what a reader takes, `drop` what
 * was never taken). A reader takes them as SSE bytes, and those bytes are what the stream keeps: whole chunks, off
 * the JS heap, not one string per event (keeping strings alive past the young generation made every turn pay in
 * garbage collection). A resume replays the kept chunks from the event after the cursor, then goes on with the rest.
 */
import { encodeSse, offsetAfterId, sseEventText } from "../sse-format.js";

/** Why a cursor cannot be read from: not an id of this stream, or older than what the stream keeps. */
export type CursorProblem = { kind: "malformed" | "ahead" | "expired"; message: string };

/** What a queue tells its reader. */
export interface QueueWaker {
  wake(): void;
}

/** Taken events, as the SSE bytes a reader got, and the ids of the first and last. */
interface Chunk {
  readonly bytes: Uint8Array;
  readonly firstId: number;
  readonly lastId: number;
}

/** A cursor as the client sent it: a decimal id, or undefined when it is not one. */
export function parseCursor(cursor: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,15})$/.test(cursor)) return undefined;
  const value = Number(cursor);
  return Number.isSafeInteger(value) ? value : undefined;
}

export class RetainedQueue {
  /** Events no reader took yet: `[head, length)`. */
  #texts: string[] = [];
  #ids: number[] = [];
  #head = 0;
  #pendingChars = 0;
  /** Taken events kept for resumption, oldest first. */
  #kept: Chunk[] = [];
  #keptBytes = 0;
  /** A resumed reader's place in `#kept` (it replays from there before taking new events). */
  #replay: { index: number; offset: number } | undefined;
  /** Every event of this stream with an id up to this one is gone (or was never here). */
  #trimmedThrough: number;
  #lastId: number;
  #reader: QueueWaker | undefined;
  #ended = false;

  /**
   * @param nextId the connection's id counter
   * @param createdAt the id the counter is at (events after it may belong to this stream)
   * @param retainBytes SSE bytes of taken events kept for resumption
   * @param onTake called with the UTF-16 units of JSON a reader took for the first time
   * @param onReaderChange called after a reader attached or left
   */
  constructor(
    private readonly nextId: () => number,
    createdAt: number,
    private readonly retainBytes: number,
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

  /** True when every event was taken by a reader (nothing pending). */
  get isEmpty(): boolean {
    return this.#head === this.#texts.length;
  }

  /** True when the reader has something to take. */
  get hasUnread(): boolean {
    return this.#replay !== undefined || this.#head < this.#texts.length;
  }

  /** True when taken events are kept for resumption. */
  get retains(): boolean {
    return this.#kept.length > 0;
  }

  /** UTF-16 units of JSON no reader took yet. */
  get chars(): number {
    return this.#pendingChars;
  }

  /** Bytes kept for resumption. */
  get retainedBytes(): number {
    return this.#keptBytes;
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
   * The reader's next SSE bytes: what it replays after its cursor (a kept chunk at a time), then the events no reader
   * took, oldest first, until about `maxChars` units of JSON (at least one event when any is there), which are then
   * kept. Undefined when there is nothing to take.
   */
  take(maxChars: number): Uint8Array | undefined {
    const replay = this.#replay;
    if (replay !== undefined) {
      const chunk = this.#kept[replay.index]!;
      if (replay.index + 1 < this.#kept.length) this.#replay = { index: replay.index + 1, offset: 0 };
      else this.#replay = undefined;
      return replay.offset === 0 ? chunk.bytes : chunk.bytes.subarray(replay.offset);
    }
    const texts = this.#texts;
    const ids = this.#ids;
    const end = texts.length;
    const from = this.#head;
    if (from === end) return undefined;
    let head = from;
    let chars = 0;
    let sse = "";
    while (head < end && (chars === 0 || chars < maxChars)) {
      const text = texts[head]!;
      sse += `id: ${ids[head]!}\ndata: ${text}\n\n`;
      chars += text.length;
      head++;
    }
    const bytes = encodeSse(sse);
    this.#keep({ bytes, firstId: ids[from]!, lastId: ids[head - 1]! });
    this.#advance(head, chars);
    return bytes;
  }

  /**
   * Attaches `reader`, at `cursor` (a client's `Last-Event-ID`: it takes the events after that one, and displaces a
   * reader already attached) or after the last event any reader took (refused with "busy" when a reader is
   * attached). Returns a problem for a cursor that is not an id of this stream or that the stream no longer keeps.
   */
  attach(reader: QueueWaker, cursor?: string): "busy" | CursorProblem | undefined {
    let replay: { index: number; offset: number } | undefined;
    if (cursor !== undefined) {
      const found = this.#position(cursor);
      if (found !== undefined && "kind" in found) return found;
      replay = found;
    } else if (this.#reader !== undefined) return "busy";
    const displaced = this.#reader;
    this.#replay = replay;
    this.#reader = reader;
    // A reader taking over from another: one in, one out, nothing for the owner to count.
    if (displaced !== undefined) displaced.wake();
    else this.onReaderChange?.(this);
    return undefined;
  }

  /** Detaches `reader` if it is the one attached. */
  detach(reader: QueueWaker): void {
    if (this.#reader !== reader) return;
    this.#reader = undefined;
    this.#replay = undefined;
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
    this.#head = 0;
    this.#pendingChars = 0;
    this.#kept = [];
    this.#keptBytes = 0;
    this.#replay = undefined;
    this.#trimmedThrough = this.#lastId;
    this.end();
    return dropped;
  }

  /**
   * Where a reader at `cursor` starts: a place in the kept chunks, or undefined for the first event not taken yet;
   * or why it cannot. A cursor among the events not taken yet means the client has them: they count as taken.
   */
  #position(cursor: string): { index: number; offset: number } | CursorProblem | undefined {
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
    const kept = this.#kept;
    for (let index = 0; index < kept.length; index++) {
      const chunk = kept[index]!;
      if (chunk.lastId <= id) continue;
      return { index, offset: chunk.firstId > id ? 0 : offsetAfterId(chunk.bytes, id) };
    }
    // After everything kept: the events up to the cursor that no reader took, the client has already.
    let head = this.#head;
    let chars = 0;
    const from = head;
    while (head < this.#texts.length && this.#ids[head]! <= id) chars += this.#texts[head++]!.length;
    if (head > from) {
      let sse = "";
      for (let i = from; i < head; i++) sse += sseEventText(this.#ids[i]!, this.#texts[i]!);
      this.#keep({ bytes: encodeSse(sse), firstId: this.#ids[from]!, lastId: this.#ids[head - 1]! });
      this.#advance(head, chars);
    }
    return undefined;
  }

  /** Keeps a taken chunk, dropping the oldest while more than `retainBytes` are kept (never one being replayed). */
  #keep(chunk: Chunk): void {
    this.#kept.push(chunk);
    this.#keptBytes += chunk.bytes.length;
    let drop = 0;
    const limit = this.#replay === undefined ? this.#kept.length : this.#replay.index;
    while (drop < limit && this.#keptBytes > this.retainBytes) {
      const oldest = this.#kept[drop++]!;
      this.#keptBytes -= oldest.bytes.length;
      this.#trimmedThrough = oldest.lastId;
    }
    if (drop === 0) return;
    this.#kept.splice(0, drop);
    if (this.#replay !== undefined) this.#replay = { ...this.#replay, index: this.#replay.index - drop };
  }

  /** The events before `head` were taken (`chars` units of JSON): forget their texts and tell the owner. */
  #advance(head: number, chars: number): void {
    const texts = this.#texts;
    for (let i = this.#head; i < head; i++) texts[i] = "";
    this.#head = head;
    this.#pendingChars -= chars;
    if (head === texts.length) {
      this.#texts = [];
      this.#ids = [];
      this.#head = 0;
    } else if (head >= 1024 && head * 2 >= texts.length) {
      this.#texts = texts.slice(head);
      this.#ids = this.#ids.slice(head);
      this.#head = 0;
    }
    this.onTake(chars);
  }
}
