/**
 * The cassette format: one NDJSON file per conversation, written by `acp tap`, `acp record`, `--trace` and the
 * library's `CassetteRecorder`, read by `acp replay` and `readCassette`.
 *
 * Line 1 is the header:
 *   {"acpCassette":1,"created":"<ISO time>","tool":{"name":"acp tap","version":"0.1.0"},"protocolVersion":1,
 *    "clientInfo":{...},"clientCapabilities":{...},"agentInfo":{...},"agentCapabilities":{...},"agent":["cmd","arg"]}
 * (fields from `initialize` are present once the recorder saw it). Every further line is one frame, in wire order:
 *   {"time":<ms since the epoch>,"from":"client"|"agent","message":{...}}      a JSON value as it was sent
 *   {"time":...,"from":"agent","line":"text"}                                  a line that is not JSON
 *   {"time":...,"from":"agent","oversized":{"bytes":N,"head":"first bytes"}}   a line over the size limit
 * `from` is the direction: the side that wrote the frame. Readers ignore fields they do not know. Two optional
 * annotations may follow on a frame line: `"rawId":"<digits>"`, the exact text of an id a JS number cannot hold
 * (beyond 2^53), and `"note":"..."`, what the recorder changed (a message it could not write as is is recorded as
 * a copy with markers in place of what could not be written, and a note saying so).
 */
import type { Side, WireFrame } from "./events.js";

/** The cassette format version this code writes and reads. */
export const CASSETTE_VERSION = 1;

/** The first line of a cassette. */
export interface CassetteHeader {
  acpCassette: number;
  /** When recording started (ISO 8601). */
  created: string;
  /** What recorded it. */
  tool: { name: string; version: string };
  /** The agent's command line, when the recorder started the agent. */
  agent?: readonly string[];
  protocolVersion?: unknown;
  clientInfo?: unknown;
  clientCapabilities?: unknown;
  agentInfo?: unknown;
  agentCapabilities?: unknown;
  [extra: string]: unknown;
}

/** One frame of a cassette. */
export interface CassetteEntry {
  /** Milliseconds since the epoch when the recorder saw the frame. */
  time: number;
  from: Side;
  frame: WireFrame;
}

/** A whole cassette. */
export interface Cassette {
  header: CassetteHeader;
  entries: CassetteEntry[];
}

/** A cassette that cannot be read: `line` is 1-based. */
export class CassetteFormatError extends Error {
  constructor(
    readonly line: number,
    detail: string,
  ) {
    super(`cassette line ${line}: ${detail}`);
    this.name = "CassetteFormatError";
  }
}

/** Annotations of one frame line (see the file comment). */
export interface EntryNotes {
  /** The exact text of the message's id, when a JS number cannot hold it. */
  rawId?: string;
  /** What the recorder changed in the frame. */
  note?: string;
}

/**
 * The line (without its newline) of one frame. `raw`: the frame's JSON text as it crossed the wire, if at hand.
 * Throws what `JSON.stringify` throws for a value it cannot write (a cycle, a BigInt, nesting too deep).
 */
export function entryLine(from: Side, frame: WireFrame, time: number, raw?: string, notes?: EntryNotes): string {
  const head = `{"time":${Number.isFinite(time) ? time : 0},"from":"${from}",`;
  const tail =
    notes === undefined
      ? "}"
      : `${notes.rawId === undefined ? "" : `,"rawId":${JSON.stringify(notes.rawId)}`}${notes.note === undefined ? "" : `,"note":${JSON.stringify(notes.note)}`}}`;
  switch (frame.kind) {
    case "message":
      return `${head}"message":${raw ?? JSON.stringify(frame.value) ?? "null"}${tail}`;
    case "unparsable":
      return `${head}"line":${JSON.stringify(frame.line)}${tail}`;
    case "oversized":
      return `${head}"oversized":${JSON.stringify({ bytes: frame.bytes, head: frame.head })}${tail}`;
  }
}

/** Parses a cassette's text. Throws `CassetteFormatError` naming the line at fault. */
export function readCassette(text: string): Cassette {
  const lines = text.split("\n");
  let header: CassetteHeader | undefined;
  const entries: CassetteEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (i === lines.length - 1) break; // a torn last line (the recorder was killed mid-write)
      throw new CassetteFormatError(i + 1, `not JSON (${(error as Error).message})`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new CassetteFormatError(i + 1, "expected a JSON object");
    const record = value as Record<string, unknown>;
    if (header === undefined) {
      if (typeof record.acpCassette !== "number")
        throw new CassetteFormatError(
          i + 1,
          'the first line must be the header ({"acpCassette":1,...}); is this an ACP cassette?',
        );
      if (record.acpCassette > CASSETTE_VERSION)
        throw new CassetteFormatError(
          i + 1,
          `cassette format ${record.acpCassette} is newer than this acpkit reads (${CASSETTE_VERSION}); update acpkit`,
        );
      header = record as CassetteHeader;
      continue;
    }
    entries.push(entryOf(record, i + 1));
  }
  if (header === undefined) throw new CassetteFormatError(1, "the cassette is empty (no header line)");
  return { header, entries };
}

function entryOf(record: Record<string, unknown>, line: number): CassetteEntry {
  const { time, from } = record;
  if (from !== "client" && from !== "agent")
    throw new CassetteFormatError(line, `"from" must be "client" or "agent", got ${JSON.stringify(from)}`);
  if (typeof time !== "number")
    throw new CassetteFormatError(line, '"time" must be a number (milliseconds since the epoch)');
  if ("message" in record) return { time, from, frame: { kind: "message", value: record.message } };
  if (typeof record.line === "string") return { time, from, frame: { kind: "unparsable", line: record.line } };
  const oversized = record.oversized as { bytes?: unknown; head?: unknown } | undefined;
  if (oversized && typeof oversized.bytes === "number")
    return { time, from, frame: { kind: "oversized", bytes: oversized.bytes, head: String(oversized.head ?? "") } };
  throw new CassetteFormatError(line, 'a frame needs "message", "line" or "oversized"');
}
