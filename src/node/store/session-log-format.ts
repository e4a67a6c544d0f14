/**
 * The file session store's log format, and the reader that classifies every byte of a log.
 *
 * A log line is `["<crc32 hex>",<record JSON>]\n`: valid NDJSON, the checksum covering the record's UTF-8 bytes.
 * The reader sorts what it finds into:
 * - records: a valid checksum and a kind this version knows (`update`, `data`);
 * - unknown: a valid checksum but another kind or shape (what a newer version may write): kept, never replayed;
 * - damaged: a complete line (or an unterminated tail) that is not a valid frame: never dropped by the store;
 * - a torn tail: an unterminated tail that can only be the beginning of a frame cut by a crash (optionally followed
 *   by NUL bytes, which some file systems leave when a file grew but its data never reached the disk). It holds no
 *   record with a valid checksum, so dropping it loses nothing.
 * Lines ending in `\r\n` (a log whose line endings were converted) are read as if they ended in `\n`: the checksum
 * proves the record is intact.
 */
import type { SessionRecord } from "../../agent/toolkit/session-store.js";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE) of `bytes`, as 8 lowercase hex digits. */
export function crc32Hex(bytes: Uint8Array): string {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0");
}

/** Any JSON value as one framed log line (with its newline). */
export function frameValue(value: unknown): string {
  const json = JSON.stringify(value);
  return `["${crc32Hex(Buffer.from(json, "utf8"))}",${json}]\n`;
}

/** One record as one framed log line (with its newline). */
export function frameRecord(record: SessionRecord): string {
  return frameValue(record);
}

const PREFIX_LENGTH = 12; // ["xxxxxxxx",
const HEX = /^[0-9a-f]$/;

/** How a line (or the unterminated tail) was read. */
export type LineStatus = "record" | "unknown" | "damaged";

/** One line of a log: its byte span (newline excluded) and what it holds. */
export interface LogLine {
  /** 1-based line number. */
  line: number;
  start: number;
  /** End of the content (exclusive), before any `\r` and the newline. */
  end: number;
  status: LineStatus;
  /** Why a damaged line is damaged. */
  reason?: string;
  /** The record, for `record` lines. */
  record?: SessionRecord;
}

/** What `scanLog` found. */
export interface ScannedLog {
  /** Every line with a status, in order (the tail included when it is not torn). */
  lines: LogLine[];
  /** The known records, in order. */
  records: SessionRecord[];
  /** The damaged lines. */
  damaged: LogLine[];
  /** How many lines have a valid checksum but a kind this version does not know. */
  unknown: number;
  /** How many lines ended in `\r\n`. */
  crlf: number;
  /** Bytes of a torn tail (0 when none); it starts at `tornStart`. */
  tornBytes: number;
  tornStart: number;
  /** True when the log's last line (not torn) has no newline: an append must start with one. */
  unterminated: boolean;
}

/** Reads one line's content (no newline, no `\r`). */
function readLine(content: Buffer): { status: LineStatus; reason?: string; record?: SessionRecord } {
  if (content.length < PREFIX_LENGTH + 2 || content[content.length - 1] !== 0x5d)
    return { status: "damaged", reason: "not a record frame" };
  const head = content.subarray(0, PREFIX_LENGTH).toString("latin1");
  if (!/^\["[0-9a-f]{8}",$/.test(head)) return { status: "damaged", reason: "not a record frame" };
  const body = content.subarray(PREFIX_LENGTH, content.length - 1);
  if (crc32Hex(body) !== head.slice(2, 10)) return { status: "damaged", reason: "checksum mismatch" };
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return { status: "unknown" };
  }
  return isKnownRecord(value) ? { status: "record", record: value } : { status: "unknown" };
}

/** True for a record of a kind this version knows (`update` with an object, or `data`). */
export function isKnownRecord(value: unknown): value is SessionRecord {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const record = value as { kind?: unknown; update?: unknown };
  if (record.kind === "data") return "data" in record;
  return record.kind === "update" && record.update !== null && typeof record.update === "object";
}

/**
 * True when an unterminated tail can only be a frame cut short: a prefix of `["<8 hex>",` followed by JSON text
 * (which never holds a raw control character), then nothing but NUL bytes, and no complete valid frame inside.
 */
export function isTornTail(tail: Buffer): boolean {
  let end = tail.length;
  while (end > 0 && tail[end - 1] === 0) end--;
  const content = tail.subarray(0, end);
  const expected = '["hhhhhhhh",';
  for (let i = 0; i < Math.min(content.length, PREFIX_LENGTH); i++) {
    const char = String.fromCharCode(content[i]!);
    if (expected[i] === "h" ? !HEX.test(char) : expected[i] !== char) return false;
  }
  for (let i = PREFIX_LENGTH; i < content.length; i++) {
    if (content[i]! < 0x20) return false;
    // A complete valid frame followed by more bytes is a damaged record, not a torn one.
    if (content[i] === 0x5d && readLine(content.subarray(0, i + 1)).status !== "damaged") return false;
  }
  return true;
}

/** Reads a whole log. Pure: the store decides what to do with damage. */
export function scanLog(bytes: Buffer): ScannedLog {
  const scanned: ScannedLog = {
    lines: [],
    records: [],
    damaged: [],
    unknown: 0,
    crlf: 0,
    tornBytes: 0,
    tornStart: bytes.length,
    unterminated: false,
  };
  let start = 0;
  let number = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const terminated = newline !== -1;
    const stop = terminated ? newline : bytes.length;
    number++;
    if (!terminated) {
      const tail = bytes.subarray(start);
      const read = readLine(tail[tail.length - 1] === 0x0d ? tail.subarray(0, -1) : tail);
      if (read.status === "damaged" && isTornTail(tail)) {
        scanned.tornBytes = tail.length;
        scanned.tornStart = start;
        break;
      }
      scanned.unterminated = true;
    }
    let end = stop;
    if (end > start && bytes[end - 1] === 0x0d) {
      end--;
      if (terminated) scanned.crlf++;
    }
    const read = readLine(bytes.subarray(start, end));
    const line: LogLine = { line: number, start, end, status: read.status };
    if (read.reason !== undefined) line.reason = read.reason;
    if (read.record !== undefined) line.record = read.record;
    scanned.lines.push(line);
    if (read.status === "record") scanned.records.push(read.record!);
    else if (read.status === "unknown") scanned.unknown++;
    else scanned.damaged.push(line);
    start = stop + 1;
  }
  return scanned;
}

/** The log without its damaged lines and torn tail: every record and unknown line, each ending in `\n`. */
export function keptLines(bytes: Buffer, scanned: ScannedLog): Buffer {
  const parts: Buffer[] = [];
  for (const line of scanned.lines) {
    if (line.status === "damaged") continue;
    parts.push(bytes.subarray(line.start, line.end), Buffer.from("\n"));
  }
  return Buffer.concat(parts);
}

/** A short description of the damaged lines ("line 3: checksum mismatch; line 9: not a record frame"). */
export function describeDamage(damaged: readonly LogLine[], max = 5): string {
  const shown = damaged.slice(0, max).map((line) => `line ${line.line}: ${line.reason ?? "unreadable"}`);
  if (damaged.length > max) shown.push(`and ${damaged.length - max} more`);
  return shown.join("; ");
}
