/**
 * `acpkit/experimental/http-client`: the same value and type exports as `@agentclientprotocol/sdk/experimental/http-client`
 * (2.4.0). Code written against it runs unchanged with this import. Entry file only: no logic here.
 */
export { createHttpStream, type HttpStreamOptions } from "../transports/remote/http-stream.js";
export { MemoryAcpCookieStore, type AcpCookieStore } from "../transports/remote/cookie-store.js";
export { DEFAULT_MAX_MESSAGE_BYTES } from "../transports/serialize.js";
export { MessageTooLargeError } from "../jsonrpc/local-errors.js";
