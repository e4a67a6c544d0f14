/**
 * An incremental parser of `text/event-stream` (Server-Sent Events), as the HTML standard defines it, for the
 * Streamable HTTP client: each event's data goes to a handler, with a size limit that bounds memory.
 *
 * Contracts (HTML "Parsing an event stream"):
 * - The stream is UTF-8; one leading BOM is dropped; characters split across chunks stay intact.
 * - Lines end with CRLF, LF or a lone CR, in any mix, split across chunks anywhere (a CR at a chunk's end and
 *   the LF that starts the next one are one line ending).
 * - `data` fields are joined with "\n" (multi-line data); a value's one leading space is dropped; a line
 *   starting with ":" is a comment (keep-alives); `retry` and unknown fields are ignored, and so is `event` for an
 *   event with data (its data is delivered whatever its type).
 * - An event without data but with a type (`event: end`) is not dispatched (the standard drops it) but reported
 *   through `signal`: acpkit's server ends a stream it ends on purpose with one (`STREAM_END_EVENT`).
 * - `id` sets the last event ID buffer (a value with U+0000 is ignored); each dispatch makes it the last event ID,
 *   which goes with the event's data (and to `position` for an event without data): what a client sends as
 *   `Last-Event-ID` when it reconnects.
 * - A blank line dispatches the event when its data is not empty; an unfinished event at the end of input is
 *   discarded, never dispatched.
 * - Data over `maxDataBytes` (UTF-8) is reported once through `tooLarge` and not buffered past the limit; the
 *   parser carries on with the next event.
 *
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { utf8Length } from "../../transports/serialize.js";

const LF = 0x0a;
const HEAD_CHARS = 256;
/** Characters a field line may carry beyond its data value ("data: "), before it is known to be too long. */
const FIELD_SLACK = 8;

/** Where the parser delivers events. */
export interface SseHandler {
  /** One event's data (its `data` lines joined with "\n"; never empty) and the last event ID as of it. */
  data(text: string, lastEventId: string): void;
  /** An event whose data exceeded the limit was skipped. `bytes` is its size (a lower bound when cut short). */
  tooLarge(bytes: number, head: string, lastEventId: string): void;
  /** An event without data changed the last event ID. */
  position?(lastEventId: string): void;
  /** An event without data had a type (`event: <type>`): a signal from the server, such as the end of the stream. */
  signal?(type: string): void;
  /** A comment line (`:` first): a keep-alive, as far as clients know. */
  comment?(): void;
}

/** Parses one event stream. Not reentrant: call `push` and `end` from one reader. */
export class SseParser {
  readonly #max: number;
  readonly #handler: SseHandler;
  readonly #decoder = new TextDecoder("utf-8");
  /** The unfinished line carried over from earlier chunks. */
  #partial = "";
  /** The previous chunk ended with CR: an LF starting the next one belongs to the same line ending. */
  #skipLf = false;
  /** Set while dropping the rest of a line that is already over the limit: whether it is a data line. */
  #discardingLine: "data" | "other" | undefined;
  /** The current event's data values, and their total length in UTF-16 units. */
  #values: string[] = [];
  #valueChars = 0;
  /** The current event's type (`event` field), "" when none. */
  #type = "";
  /** Set once the current event's data is over the limit: its head and the bytes seen so far. */
  #oversized: { head: string; bytes: number } | undefined;
  /** The last event ID buffer (set by `id` fields) and the last event ID (as of the last dispatch). */
  #idBuffer = "";
  #lastEventId = "";

  constructor(maxDataBytes: number, handler: SseHandler) {
    this.#max = maxDataBytes;
    this.#handler = handler;
  }

  /** The last event ID: the `id` in effect at the last dispatched event ("" when none was given). */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** UTF-16 units held for the unfinished line and event (bounded by about the limit). For tests and stats. */
  get bufferedChars(): number {
    return this.#partial.length + this.#valueChars;
  }

  /** Consumes one chunk, dispatching every event it completes, in order. */
  push(chunk: Uint8Array): void {
    this.#text(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The input ended: a pending line and an unfinished event are discarded, as the standard says. */
  end(): void {
    this.#decoder.decode();
    this.#partial = "";
    this.#skipLf = false;
    this.#discardingLine = undefined;
    this.#resetEvent();
  }

  #text(text: string): void {
    let pos = 0;
    const length = text.length;
    if (this.#skipLf && length > 0) {
      this.#skipLf = false;
      if (text.charCodeAt(0) === LF) pos = 1;
    }
    let nextLf = text.indexOf("\n", pos);
    let nextCr = text.indexOf("\r", pos);
    while (nextLf !== -1 || nextCr !== -1) {
      let end: number;
      let next: number;
      if (nextCr === -1 || (nextLf !== -1 && nextLf < nextCr)) {
        end = nextLf;
        next = end + 1;
      } else {
        end = nextCr;
        if (end + 1 < length) next = text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
        else {
          next = end + 1;
          this.#skipLf = true;
        }
      }
      this.#completeLine(text, pos, end);
      pos = next;
      if (nextLf !== -1 && nextLf < pos) nextLf = text.indexOf("\n", pos);
      if (nextCr !== -1 && nextCr < pos) nextCr = text.indexOf("\r", pos);
    }
    if (pos < length) this.#holdPartial(text, pos);
  }

  /** Keeps text[pos..] as the unfinished line, or drops it once it is longer than any acceptable line. */
  #holdPartial(text: string, pos: number): void {
    if (this.#discardingLine) {
      this.#countDiscarded(text, pos, text.length);
      return;
    }
    const partial = this.#partial === "" && pos === 0 ? text : this.#partial + text.slice(pos);
    if (partial.length <= this.#max + FIELD_SLACK) {
      this.#partial = partial;
      return;
    }
    // Every character is at least one byte: this line alone is over the limit.
    this.#partial = "";
    const isData = partial.startsWith("data:");
    this.#discardingLine = isData ? "data" : "other";
    if (isData) this.#overflow(partial, dataValueStart(partial));
  }

  #completeLine(text: string, from: number, to: number): void {
    if (this.#discardingLine) {
      this.#countDiscarded(text, from, to);
      this.#discardingLine = undefined;
      this.#partial = "";
      return;
    }
    let line: string;
    if (this.#partial !== "") {
      line = this.#partial + text.slice(from, to);
      this.#partial = "";
    } else if (from === to) {
      this.#dispatch();
      return;
    } else if (text.startsWith("data:", from)) {
      // The common case: a data line read straight from the chunk.
      const start = from + 5 < to && text.charCodeAt(from + 5) === 0x20 ? from + 6 : from + 5;
      this.#addValue(text.slice(start, to));
      return;
    } else if (text.startsWith("id:", from)) {
      // The other common line: the event's id (acpkit's server sends one before each data line).
      const start = from + 3 < to && text.charCodeAt(from + 3) === 0x20 ? from + 4 : from + 3;
      this.#setId(text.slice(start, to));
      return;
    } else {
      line = text.slice(from, to);
    }
    this.#line(line);
  }

  #line(line: string): void {
    if (line === "") return this.#dispatch();
    if (line.charCodeAt(0) === 0x3a /* : */) return this.#handler.comment?.(); // a comment
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field === "id") {
      const start = colon === -1 ? line.length : line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1;
      return this.#setId(line.slice(start));
    }
    if (field === "event") {
      const start = colon === -1 ? line.length : line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1;
      this.#type = line.slice(start);
      return;
    }
    if (field !== "data") return; // retry and unknown fields are ignored
    this.#addValue(colon === -1 ? "" : line.slice(dataValueStart(line)));
  }

  #setId(value: string): void {
    if (!value.includes("\0")) this.#idBuffer = value;
  }

  #addValue(value: string): void {
    if (this.#oversized) {
      this.#oversized.bytes += utf8Length(value) + 1;
      return;
    }
    this.#values.push(value);
    this.#valueChars += value.length + 1;
    if (this.#valueChars - 1 > this.#max) this.#overflowValues();
  }

  /** The event's data is over the limit in characters, hence in bytes: keep its head and a count only. */
  #overflowValues(): void {
    const text = this.#values.join("\n");
    this.#oversized = { head: text.slice(0, HEAD_CHARS), bytes: utf8Length(text) };
    this.#values = [];
    this.#valueChars = 0;
  }

  /** A data line too long to hold: the event is over the limit. */
  #overflow(line: string, valueStart: number): void {
    if (!this.#oversized) {
      const before = this.#values.length > 0 ? this.#values.join("\n") + "\n" : "";
      this.#oversized = {
        head: (before + line.slice(valueStart, valueStart + HEAD_CHARS)).slice(0, HEAD_CHARS),
        bytes: utf8Length(before),
      };
      this.#values = [];
      this.#valueChars = 0;
    }
    this.#oversized.bytes += utf8Length(line) - valueStart;
  }

  #countDiscarded(text: string, from: number, to: number): void {
    if (this.#discardingLine === "data" && this.#oversized && to > from)
      this.#oversized.bytes += utf8Length(to - from === text.length ? text : text.slice(from, to));
  }

  #dispatch(): void {
    const oversized = this.#oversized;
    const values = this.#values;
    const type = this.#type;
    this.#resetEvent();
    const moved = this.#lastEventId !== this.#idBuffer;
    const id = (this.#lastEventId = this.#idBuffer);
    if (oversized) {
      this.#handler.tooLarge(oversized.bytes, oversized.head, id);
      return;
    }
    const data = values.length === 0 ? "" : values.length === 1 ? values[0]! : values.join("\n");
    if (data === "") {
      if (moved) this.#handler.position?.(id);
      if (type !== "") this.#handler.signal?.(type);
      return;
    }
    if (data.length * 3 > this.#max) {
      const bytes = utf8Length(data);
      if (bytes > this.#max) {
        this.#handler.tooLarge(bytes, data.slice(0, HEAD_CHARS), id);
        return;
      }
    }
    this.#handler.data(data, id);
  }

  #resetEvent(): void {
    this.#values = [];
    this.#valueChars = 0;
    this.#type = "";
    this.#oversized = undefined;
  }
}

/** Where a `data` line's value starts: after "data:" and one optional space (or at the end for "data"). */
function dataValueStart(line: string): number {
  if (line.length <= 4 || line.charCodeAt(4) !== 0x3a) return line.length;
  return line.charCodeAt(5) === 0x20 ? 6 : 5;
}
