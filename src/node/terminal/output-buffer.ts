/**
 * A terminal's retained output: bytes appended as they come, the oldest dropped past a byte limit, read as text
 * that never starts or ends inside a UTF-8 character.
 *
 * Spec: https://agentclientprotocol.com/protocol/terminals — with `outputByteLimit`, the client truncates from
 * the beginning of the output to stay within the limit, and MUST truncate at a character boundary, even if the
 * retained output is then slightly less than the limit.
 */

/** True for a UTF-8 continuation byte (10xxxxxx). */
const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** How many bytes a UTF-8 sequence starting with `lead` has (1 for an invalid lead). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

/**
 * Bytes of output with an optional limit. `append` keeps at most `limit` bytes (dropping from the front and
 * setting `truncated`); `text()` decodes what is kept, skipping a partial character at the front, and, unless
 * `final`, holding back a partial character at the end (it completes with the next chunk).
 */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = false;

  /** `limit`: bytes to keep, undefined for no limit. */
  constructor(readonly limit?: number) {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
      throw new RangeError(`outputByteLimit must be a non-negative integer, got ${limit}`);
  }

  /** True once any output was dropped. */
  get truncated(): boolean {
    return this.dropped;
  }

  /** Bytes currently kept. */
  get byteLength(): number {
    return this.bytes;
  }

  /** Appends a chunk, then drops the oldest bytes past the limit. */
  append(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const limit = this.limit;
    if (limit !== undefined && chunk.length >= limit) {
      // The chunk alone fills the buffer: keep its tail only.
      if (this.bytes > 0 || chunk.length > limit) this.dropped = true;
      this.chunks = limit === 0 ? [] : [Buffer.from(chunk.subarray(chunk.length - limit))];
      this.bytes = limit;
      return;
    }
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    if (limit === undefined) return;
    while (this.bytes > limit) {
      const first = this.chunks[0]!;
      const excess = this.bytes - limit;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  /** Drops the oldest bytes until at most `max` are kept (a total cap shared with other buffers); sets `truncated`. */
  trimTo(max: number): void {
    if (this.bytes <= max) return;
    this.dropped = true;
    if (max <= 0) {
      this.chunks = [];
      this.bytes = 0;
      return;
    }
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.bytes);
    this.chunks = [all.subarray(all.length - max)];
    this.bytes = max;
  }

  /**
   * The kept output as text. A partial character at the front (cut by truncation) is skipped; one at the end is
   * held back unless `final` (the process ended: then it decodes as U+FFFD). Invalid UTF-8 decodes as U+FFFD.
   */
  text(options: { final?: boolean } = {}): string {
    const final = options.final ?? false;
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.bytes)];
    const all = this.chunks[0];
    if (all === undefined) return "";
    let start = 0;
    if (this.dropped) {
      while (start < all.length && start < 3 && isContinuation(all[start]!)) start++;
    }
    let end = all.length;
    if (!final) end -= incompleteTail(all, start);
    return all.toString("utf8", start, end);
  }
}

/** How many bytes at the end of `bytes` (from `start`) are an unfinished UTF-8 sequence (0 to 3). */
export function incompleteTail(bytes: Uint8Array, start = 0): number {
  for (let back = 1; back <= 3 && bytes.length - back >= start; back++) {
    const byte = bytes[bytes.length - back]!;
    if (isContinuation(byte)) continue;
    return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}
