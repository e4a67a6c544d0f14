/**
 * The bytes of SSE events, as every stream reader hands them to a response: `id: <id>` (a cursor the client sends
 * back as `Last-Event-ID`), then `data: <json>` (JSON.stringify output has no line breaks), then a blank line. An
 * event without an id has no `id:` line; an id without a message is an `id:` line alone (it moves the client's
 * position without an event).
 *
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html
 */

const encoder = new TextEncoder();

/** The text of one event. */
export function sseEventText(id: string | number | undefined, json: string): string {
  if (id === undefined) return `data: ${json}\n\n`;
  if (json === "") return `id: ${id}\n\n`;
  return `id: ${id}\ndata: ${json}\n\n`;
}

/** UTF-8 bytes of SSE text. */
export function encodeSse(text: string): Uint8Array {
  return encoder.encode(text);
}

const LF = 0x0a;
const DIGIT_0 = 0x30;

/**
 * The byte offset, in `bytes` (whole events as `sseEventText` writes them, each with a decimal id), of the first
 * event whose id is greater than `after`; `bytes.length` when there is none.
 */
export function offsetAfterId(bytes: Uint8Array, after: number): number {
  let offset = 0;
  while (offset < bytes.length) {
    // "id: " then the digits, at the start of each event.
    let id = 0;
    let i = offset + 4;
    while (i < bytes.length && bytes[i] !== LF) id = id * 10 + (bytes[i++]! - DIGIT_0);
    if (id > after) return offset;
    // The event ends with a blank line: the first LF LF from here (JSON data has no raw line breaks).
    while (i + 1 < bytes.length && !(bytes[i] === LF && bytes[i + 1] === LF)) i++;
    offset = i + 2;
  }
  return bytes.length;
}
