/**
 * Serialization and size limits shared by the acpkit transports.
 */
import { MessageTooLargeError, UnserializableValueError } from "../jsonrpc/local-errors.js";

/** The default message size limit, in bytes of UTF-8: 32 MiB, as in `@agentclientprotocol/sdk`. */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** Validates a `maxMessageBytes` option (a positive safe integer) and applies the default. */
export function resolveMaxMessageBytes(value: number | undefined): number {
  const max = value ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(max) || max <= 0) {
    throw new RangeError(`maxMessageBytes must be a positive safe integer, got ${String(value)}`);
  }
  return max;
}

/** Strings at least this long are measured by encoding slices of them (native code), shorter ones in a loop. */
const ENCODE_TO_MEASURE = 1024;
/** UTF-16 units encoded per slice when measuring a long string. */
const MEASURE_SLICE = 16 * 1024;

let encoder: InstanceType<typeof TextEncoder> | undefined;
let scratch: Uint8Array | undefined;

/** The UTF-8 size of a well-formed string (JSON.stringify never returns lone surrogates). O(n), allocates nothing. */
export function utf8Length(text: string): number {
  if (text.length >= ENCODE_TO_MEASURE) return encodedLength(text);
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** `utf8Length` of a long string: encodes it a slice at a time into a scratch buffer (never splitting a pair). */
function encodedLength(text: string): number {
  encoder ??= new TextEncoder();
  scratch ??= new Uint8Array(MEASURE_SLICE * 3 + 3);
  let bytes = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + MEASURE_SLICE, text.length);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++; // keep a surrogate pair together
    bytes += encoder.encodeInto(text.slice(start, end), scratch).written;
    start = end;
  }
  return bytes;
}

/**
 * The UTF-8 bytes of `text` followed by a newline, in one array of the right size: encoded straight into it when the
 * text is ASCII (JSON text mostly is), else measured first.
 */
export function encodeLine(text: string): Uint8Array {
  encoder ??= new TextEncoder();
  const line = new Uint8Array(text.length + 1);
  const { read, written } = encoder.encodeInto(text, line);
  if (read === text.length && written === text.length) {
    line[written] = 0x0a;
    return line;
  }
  const whole = new Uint8Array(encodedLength(text) + 1);
  encoder.encodeInto(text, whole);
  whole[whole.length - 1] = 0x0a;
  return whole;
}

function describe(message: unknown): string {
  if (typeof message === "object" && message !== null && "method" in message && typeof message.method === "string") {
    return `the "${message.method}" message`;
  }
  return "the message";
}

const ENVELOPE_HEAD = '{"jsonrpc":"2.0","id":';

/**
 * `text` (a serialized `{"jsonrpc": "2.0", "id": ..., ...}`) with its id written as `rawId`, the exact text of a
 * number the peer sent. Unchanged when the id is not where the engine puts it.
 */
function withRawId(text: string, id: unknown, rawId: string): string {
  const written = JSON.stringify(id);
  if (written === undefined || !text.startsWith(ENVELOPE_HEAD) || !text.startsWith(written, ENVELOPE_HEAD.length))
    return text;
  return ENVELOPE_HEAD + rawId + text.slice(ENVELOPE_HEAD.length + written.length);
}

/**
 * `JSON.stringify(message)`, synchronously, or a throw that leaves nothing queued:
 * `UnserializableValueError` when the value cannot be serialized (BigInt, cycles, a top-level function or
 * undefined), `MessageTooLargeError` (outgoing) when its UTF-8 size exceeds `maxBytes`. With `rawId`, the id is
 * written as that exact text (see `MessageLink.send`).
 */
export function serializeMessage(message: unknown, maxBytes: number, rawId?: string): string {
  const text = stringify(message, rawId);
  // UTF-8 needs at least one byte and at most three per UTF-16 unit: only near the limit do we count exactly.
  if (text.length * 3 > maxBytes) refuseOverLimit(utf8Length(text), maxBytes);
  return text;
}

/** Frames at least this long (UTF-16 units) are encoded as they are serialized (see `serializeFrame`). */
export const ENCODE_FRAMES_FROM = 64 * 1024;

/**
 * Like `serializeMessage`, for a line-delimited transport: short messages come back as JSON text (without a newline),
 * long ones (`ENCODE_FRAMES_FROM` units and more) as their encoded line, newline included. A long message is encoded
 * once, here, which also gives its exact size for the limit: no separate count, no second copy on the way out.
 */
export function serializeFrame(message: unknown, maxBytes: number, rawId?: string): string | Uint8Array {
  const text = stringify(message, rawId);
  if (text.length < ENCODE_FRAMES_FROM || text.length > maxBytes) {
    if (text.length * 3 > maxBytes) refuseOverLimit(utf8Length(text), maxBytes);
    return text;
  }
  const line = encodeLine(text);
  refuseOverLimit(line.length - 1, maxBytes);
  return line;
}

function refuseOverLimit(bytes: number, maxBytes: number): void {
  if (bytes > maxBytes) throw new MessageTooLargeError(maxBytes, bytes, "outgoing");
}

function stringify(message: unknown, rawId: string | undefined): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(message);
  } catch (error) {
    throw new UnserializableValueError(describe(message), error);
  }
  if (text === undefined) {
    throw new UnserializableValueError(
      describe(message),
      new TypeError(`JSON.stringify produced nothing for a ${typeof message}`),
    );
  }
  return rawId === undefined ? text : withRawId(text, (message as { id?: unknown }).id, rawId);
}
