/**
 * Incremental newline framing for byte streams, linear in the bytes received.
 *
 * Contracts:
 * - Lines end at the byte 0x0A. That byte never occurs inside a multi-byte UTF-8 sequence, so splitting bytes
 *   there is safe and only complete lines are ever decoded (characters split across chunks stay intact).
 * - A trailing `\r` is stripped (CRLF input); empty lines are skipped; `end()` delivers a final line that has
 *   no newline.
 * - Each pushed chunk is scanned once, from where the previous scan stopped: bytes of an unfinished line are
 *   kept as pieces (the chunks themselves, not copies) and joined once when the line completes, so a 20 MiB line in
 *   64 KiB chunks costs O(n), one copy, and one decode.
 * - A line longer than `maxLineBytes` is reported through `tooLarge` once, and the rest of it is discarded up to
 *   the next newline without being buffered. Framing then carries on. While its bytes are discarded they still
 *   pass through an `EnvelopeScanner` (bounded state), so the report says whose frame it was wherever its `"id"`
 *   and `"method"` stand: it comes as soon as the limit is passed when the envelope is known by then (an id and
 *   a method, result or error already seen), otherwise when the line ends (or the input does).
 */
import { EnvelopeScanner, type EnvelopeSketch } from "../jsonrpc/envelope-scanner.js";

const LF = 0x0a;
const CR = 0x0d;
const HEAD_BYTES = 256;

/** Where complete lines and oversized ones go. */
export interface LineHandler {
  /** One complete, non-empty line, decoded as UTF-8, without its line ending. */
  line(text: string): void;
  /**
   * A line over the limit was skipped. `bytes` is its size when reported: exact when reported at the line's end,
   * otherwise how much had arrived (a lower bound). `head` is its first ~256 bytes, decoded. `envelope` is what
   * the scan of the whole line (or of what had arrived) tells about the JSON-RPC frame it held.
   */
  tooLarge(bytes: number, head: string, envelope: EnvelopeSketch): void;
}

/** The oversized line being discarded. */
interface Oversized {
  readonly scanner: EnvelopeScanner;
  readonly head: string;
  /** Bytes of the line so far (a trailing CR included). */
  bytes: number;
  lastByte: number | undefined;
  reported: boolean;
}

/** Splits a byte stream into lines. Not reentrant: call `push`/`end` from one pump. */
export class LineSplitter {
  readonly #max: number;
  readonly #handler: LineHandler;
  /** One-shot decoding: fastest for ASCII-only text in Node (simdutf). */
  readonly #decoder = new TextDecoder();
  /** Streaming decoding: steadier for non-ASCII text. Only fed bytes ending with "\n", so it keeps no state. */
  readonly #streamDecoder = new TextDecoder();
  #preferStream = false;
  /** The bytes of the current unfinished line, in order (views of the chunks they came in, or copies: see `#hold`). */
  #pieces: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The oversized line whose rest is being skipped, if any. */
  #oversized: Oversized | undefined;

  constructor(maxLineBytes: number, handler: LineHandler) {
    this.#max = maxLineBytes;
    this.#handler = handler;
  }

  /** Bytes held for the current unfinished line (never more than the limit plus one). For tests and stats. */
  get bufferedBytes(): number {
    return this.#pendingBytes;
  }

  /**
   * Consumes one chunk, delivering every line it completes, in order. The bytes of an unfinished line may be kept, not
   * copied, until the line completes: the caller must not change a chunk once pushed (chunks read from a stream never
   * are).
   */
  push(chunk: Uint8Array): void {
    const length = chunk.length;
    let pos = 0;
    if (this.#oversized !== undefined) {
      const newline = chunk.indexOf(LF);
      this.#skip(chunk, 0, newline < 0 ? length : newline);
      if (newline < 0) return;
      this.#endOversized();
      pos = newline + 1;
    }
    if (this.#pendingBytes > 0) {
      const newline = chunk.indexOf(LF, pos);
      if (newline < 0) {
        this.#hold(chunk, pos, length);
        return;
      }
      this.#completePending(chunk, pos, newline);
      pos = newline + 1;
    }
    if (pos >= length) return;
    const last = chunk.lastIndexOf(LF);
    if (last >= pos) {
      // No line in [pos, last) can be longer than the region itself: most chunks skip per-line size checks.
      if (last - pos <= this.#max) this.#emitRegion(chunk, pos, last);
      else this.#emitChecked(chunk, pos, last);
      pos = last + 1;
    }
    if (pos < length) this.#hold(chunk, pos, length);
  }

  /** The input ended: delivers the final line if it had no newline, and resets. */
  end(): void {
    if (this.#oversized !== undefined) this.#endOversized();
    if (this.#pendingBytes === 0) return;
    const line = this.#takePending();
    const size = line[line.length - 1] === CR ? line.length - 1 : line.length;
    if (size > this.#max) this.#reportWhole([line], size);
    else this.#emitText(this.#decoder.decode(line));
  }

  /** Drops any partial line (after a cancel). */
  reset(): void {
    this.#pieces = [];
    this.#pendingBytes = 0;
    this.#oversized = undefined;
  }

  /** Reports a whole oversized line (its bytes are `pieces`), exact size known. */
  #reportWhole(pieces: Uint8Array[], size: number): void {
    const scanner = new EnvelopeScanner();
    for (const piece of pieces) scanner.push(piece);
    this.#handler.tooLarge(size, this.#head(pieces), scanner.sketch());
  }

  /** Starts skipping a line found oversized before its end; `pieces` are its bytes so far. */
  #startOversized(pieces: Uint8Array[], bytes: number): void {
    const scanner = new EnvelopeScanner();
    for (const piece of pieces) scanner.push(piece);
    const last = pieces[pieces.length - 1];
    const oversized: Oversized = {
      scanner,
      head: this.#head(pieces),
      bytes,
      lastByte: last?.[last.length - 1],
      reported: false,
    };
    this.reset();
    this.#oversized = oversized;
    this.#reportIfSettled(oversized);
  }

  /** Scans and drops chunk[from, to) of the oversized line. */
  #skip(chunk: Uint8Array, from: number, to: number): void {
    if (to <= from) return;
    const oversized = this.#oversized!;
    oversized.bytes += to - from;
    oversized.lastByte = chunk[to - 1];
    if (oversized.scanner.settled) return;
    oversized.scanner.push(chunk, from, to);
    this.#reportIfSettled(oversized);
  }

  #reportIfSettled(oversized: Oversized): void {
    if (oversized.reported || !oversized.scanner.settled) return;
    oversized.reported = true;
    this.#handler.tooLarge(oversized.bytes, oversized.head, oversized.scanner.sketch());
  }

  /** The oversized line ended: reports it now if it was not reported early. */
  #endOversized(): void {
    const oversized = this.#oversized!;
    this.#oversized = undefined;
    if (oversized.reported) return;
    const size = oversized.lastByte === CR ? oversized.bytes - 1 : oversized.bytes;
    this.#handler.tooLarge(size, oversized.head, oversized.scanner.sketch());
  }

  /** Decodes [from, to] (complete lines; chunk[to] is "\n") once and splits the text at each "\n". */
  #emitRegion(chunk: Uint8Array, from: number, to: number): void {
    if (to <= from) {
      return; // a lone newline: an empty line
    }
    const text = this.#decode(chunk.subarray(from, to + 1));
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      if (newline < 0) return; // the text ends with "\n"
      this.#emitText(text, start, newline);
      start = newline + 1;
    }
  }

  /**
   * Decodes bytes that end with "\n". Picks the decoder by the last chunk's content: a one-shot decode that
   * meets non-ASCII text switches to the streaming decoder, which switches back on ASCII-only text.
   */
  #decode(bytes: Uint8Array): string {
    if (this.#preferStream) {
      const text = this.#streamDecoder.decode(bytes, { stream: true });
      if (text.length === bytes.length) this.#preferStream = false;
      return text;
    }
    const text = this.#decoder.decode(bytes);
    if (text.length !== bytes.length) this.#preferStream = true;
    return text;
  }

  /** Like #emitRegion, for a region that may hold oversized lines: checks each line's byte size first. */
  #emitChecked(chunk: Uint8Array, from: number, to: number): void {
    let runStart = from;
    let lineStart = from;
    while (lineStart <= to) {
      let lineEnd = chunk.indexOf(LF, lineStart);
      if (lineEnd < 0 || lineEnd > to) lineEnd = to;
      const size = lineEnd - lineStart - (lineEnd > lineStart && chunk[lineEnd - 1] === CR ? 1 : 0);
      if (size > this.#max) {
        this.#emitRegion(chunk, runStart, lineStart - 1);
        this.#reportWhole([chunk.subarray(lineStart, lineStart + size)], size);
        runStart = lineEnd + 1;
      }
      lineStart = lineEnd + 1;
    }
    this.#emitRegion(chunk, runStart, to);
  }

  /** Delivers text[start, end) without a trailing "\r", unless that leaves it empty. */
  #emitText(text: string, start = 0, end = text.length): void {
    let stop = end;
    if (stop > start && text.charCodeAt(stop - 1) === CR) stop--;
    if (stop <= start) return;
    this.#handler.line(start === 0 && stop === text.length ? text : text.slice(start, stop));
  }

  /**
   * Keeps chunk[from, to) for the unfinished line, or starts discarding once the line is over the limit. The bytes
   * are kept as a view, not copied, when the view is at least half of the memory it holds on to (a chunk read from a
   * pipe or socket is its own buffer): a line that arrives in many chunks is copied once, when it completes. A small
   * piece of a larger buffer is copied, so that holding it never keeps much more than itself alive.
   */
  #hold(chunk: Uint8Array, from: number, to: number): void {
    const total = this.#pendingBytes + (to - from);
    // One byte of slack: a trailing "\r" does not count, and we cannot know yet whether one follows.
    if (total > this.#max + 1 || (total === this.#max + 1 && chunk[to - 1] !== CR)) {
      this.#startOversized([...this.#pieces, chunk.subarray(from, to)], total);
      return;
    }
    const size = to - from;
    if (size * 2 >= chunk.buffer.byteLength) {
      this.#pieces.push(chunk.subarray(from, to));
    } else {
      const copy = new Uint8Array(size);
      copy.set(chunk.subarray(from, to));
      this.#pieces.push(copy);
    }
    this.#pendingBytes = total;
  }

  /** Finishes the pending line with chunk[from, newline). */
  #completePending(chunk: Uint8Array, from: number, newline: number): void {
    const tail = chunk.subarray(from, newline);
    const total = this.#pendingBytes + tail.length;
    const lastByte = tail.length > 0 ? tail[tail.length - 1] : this.#lastPendingByte();
    const size = lastByte === CR ? total - 1 : total;
    if (size > this.#max) {
      const pieces = [...this.#pieces, tail];
      this.reset();
      this.#reportWhole(pieces, size);
      return;
    }
    this.#pieces.push(chunk.subarray(from, newline + 1));
    this.#pendingBytes = total + 1;
    const text = this.#decode(this.#takePending());
    this.#emitText(text, 0, text.length - 1);
  }

  #lastPendingByte(): number | undefined {
    const piece = this.#pieces[this.#pieces.length - 1];
    return piece === undefined ? undefined : piece[piece.length - 1];
  }

  /** Joins the pending pieces into one array (a single copy) and clears them. */
  #takePending(): Uint8Array {
    const pieces = this.#pieces;
    let line: Uint8Array;
    if (pieces.length === 1) {
      line = pieces[0]!;
    } else {
      line = new Uint8Array(this.#pendingBytes);
      let offset = 0;
      for (const piece of pieces) {
        line.set(piece, offset);
        offset += piece.length;
      }
    }
    this.reset();
    return line;
  }

  /** Decodes the first ~256 bytes of `pieces`, dropping a character cut at the end. */
  #head(pieces: Uint8Array[]): string {
    const bytes = new Uint8Array(HEAD_BYTES);
    let filled = 0;
    for (const piece of pieces) {
      const take = Math.min(piece.length, HEAD_BYTES - filled);
      bytes.set(piece.subarray(0, take), filled);
      filled += take;
      if (filled === HEAD_BYTES) break;
    }
    // A fresh streaming decoder returns only complete characters; the cut one stays in its (discarded) state.
    return new TextDecoder().decode(bytes.subarray(0, filled), { stream: true });
  }
}
