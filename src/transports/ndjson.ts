/**
 * `ndJsonStream`: newline-delimited JSON over a pair of byte web streams, the way ACP runs over stdio.
 * Same name and call shape as `@agentclientprotocol/sdk`; the result also carries an acpkit fast link.
 *
 * Spec: https://agentclientprotocol.com/protocol/transports (messages are delimited by newlines and MUST NOT
 * contain embedded newlines).
 */
import type { Stream } from "../jsonrpc/link.js";
import { webByteSink, webByteSource } from "./bytes.js";
import { streamFromLink, type LinkStreamOptions } from "./link-streams.js";
import { NdJsonLink, type NdJsonLinkOptions } from "./ndjson-link.js";
import { installNodeWebOrigins } from "./node-web-origins.js";

export { DEFAULT_MAX_MESSAGE_BYTES } from "./serialize.js";

// Streams that `Readable.toWeb`/`Writable.toWeb` make from now on are read and written through their Node streams
// (`node-web-origins.ts`).
installNodeWebOrigins();

/**
 * Options of `ndJsonStream`. `maxMessageBytes` is the official SDK's option; the rest are acpkit extras.
 */
export interface NdJsonStreamOptions extends NdJsonLinkOptions, LinkStreamOptions {}

/**
 * Creates an ACP `Stream` from a pair of newline-delimited JSON byte streams.
 *
 * - `readable`/`writable` are web streams of messages for code that uses streams directly; they are created on
 *   first access. `[LINK]` is the fast path an acpkit connection uses. Only one of `readable` and the link may
 *   read: using one makes the other throw.
 * - Incoming lines over `maxMessageBytes` are skipped without being buffered (reported as `too_large`), and
 *   lines that are not JSON are reported as `parse` problems; the connection stays up either way.
 * - Outgoing messages are serialized synchronously and the messages of one turn go out as one write.
 * - The caller keeps its streams, as with the official SDK: `output` is locked only while a write is handed over and
 *   is never closed by acpkit (not when the input ends, not on `close()`), so the caller may close it, which is how a
 *   client ends an agent (its stdin); `input` is cancelled and released when the connection closes.
 *
 * @param output - where encoded messages are written (e.g. the peer's stdin)
 * @param input - where encoded messages are read from (e.g. the peer's stdout)
 */
export function ndJsonStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  options: NdJsonStreamOptions = {},
): Stream {
  installNodeWebOrigins(); // for the streams made from now on, if node:stream was not loaded before
  return streamFromLink(
    new NdJsonLink(webByteSource(input), webByteSink(output, { closeOutput: false }), options),
    options,
  );
}
