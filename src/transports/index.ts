/**
 * Transports: how messages travel. Each returns a `Stream` (`{ readable, writable }` like the official SDK)
 * carrying an acpkit fast `[LINK]`. Browser-safe: nothing here imports `node:*` (see `@acpkit/sdk/node`).
 */
export { ndJsonStream, DEFAULT_MAX_MESSAGE_BYTES, type NdJsonStreamOptions } from "./ndjson.js";
export { createMemoryPair, createMemoryByteStreams, type MemoryPairOptions, type ByteStreamEnd } from "./memory.js";
export { linkFromStream } from "./stream-link.js";
export { streamFromLink, type LinkControl, type LinkStreamOptions } from "./link-streams.js";
export { NdJsonLink, type NdJsonLinkOptions } from "./ndjson-link.js";
export { webByteSink, webByteSource, type ByteSink, type ByteSource, type ByteSourceHandlers } from "./bytes.js";
export { resolveMaxMessageBytes } from "./serialize.js";
