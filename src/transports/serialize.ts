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

/** The UTF-8 size of a well-formed string (JSON.stringify never returns lone surrogates). O(n). */
export function utf8Length(text: string): number {
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
  if (rawId !== undefined) text = withRawId(text, (message as { id?: unknown }).id, rawId);
  // UTF-8 needs at least one byte and at most three per UTF-16 unit: only near the limit do we count exactly.
  if (text.length * 3 > maxBytes) {
    const bytes = utf8Length(text);
    if (bytes > maxBytes) throw new MessageTooLargeError(maxBytes, bytes, "outgoing");
  }
  return text;
}
