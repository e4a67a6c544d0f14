export * from "./messages.js";
export * from "./request-error.js";
export * from "./local-errors.js";
export * from "./logger.js";
export * from "./link.js";
export * from "./tap.js";
export type { IncomingRequestContext } from "./incoming.js";
export { JsonRpcConnection, CANCEL_REQUEST_METHOD } from "./connection.js";
export type { Dispatcher, SendRequestOptions, ConnectionOptions, ResultParser } from "./connection.js";
