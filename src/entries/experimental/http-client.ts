/**
 * `@acpkit/sdk/experimental/http-client`: the same value and type exports as
 * `@agentclientprotocol/sdk/experimental/http-client` (2.4.0). Code written against it runs unchanged with this import.
 * Entry file only: no logic here.
 */
export { createHttpStream, type HttpStreamOptions } from "../../remote/client/http-stream.js";
export { MemoryAcpCookieStore, type AcpCookieStore } from "../../remote/client/cookie-store.js";
export { DEFAULT_MAX_MESSAGE_BYTES } from "../../transports/serialize.js";
export { MessageTooLargeError } from "../../jsonrpc/local-errors.js";
