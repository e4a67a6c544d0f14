import type { ErrorResponse, Result } from "./messages.js";

/** Standard JSON-RPC and ACP error codes. */
export const ErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestCancelled: -32800,
  authRequired: -32000,
  resourceNotFound: -32002,
} as const;

function withDetail(base: string, additionalMessage?: string): string {
  return additionalMessage ? `${base}: ${additionalMessage}` : base;
}

/**
 * An error that crosses the wire: a JSON-RPC error response with `code`, `message` and optional `data`.
 *
 * Throw it from a handler to answer a request with exactly this error; a request you sent rejects with it
 * when the peer answers with an error. Local failures (closed connection, timeout, oversized message) are
 * never `RequestError`s: see `LocalError`.
 */
export class RequestError extends Error {
  code: number;
  data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RequestError";
    this.code = code;
    this.data = data;
  }

  /** -32700: invalid JSON was received. */
  static parseError(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(ErrorCodes.parseError, withDetail("Parse error", additionalMessage), data);
  }

  /** -32600: the JSON sent is not a valid request object. */
  static invalidRequest(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(ErrorCodes.invalidRequest, withDetail("Invalid request", additionalMessage), data);
  }

  /** -32601: the method does not exist or is not available. */
  static methodNotFound(method: string): RequestError {
    return new RequestError(ErrorCodes.methodNotFound, `"Method not found": ${method}`, { method });
  }

  /** -32602: invalid method parameters. */
  static invalidParams(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(ErrorCodes.invalidParams, withDetail("Invalid params", additionalMessage), data);
  }

  /** -32603: internal error. */
  static internalError(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(ErrorCodes.internalError, withDetail("Internal error", additionalMessage), data);
  }

  /** -32800: execution of the request was cancelled. */
  static requestCancelled(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(ErrorCodes.requestCancelled, withDetail("Request cancelled", additionalMessage), data);
  }

  /** -32000: authentication is required before this operation. */
  static authRequired(data?: unknown, additionalMessage?: string): RequestError {
    return new RequestError(ErrorCodes.authRequired, withDetail("Authentication required", additionalMessage), data);
  }

  /** -32002: a resource (such as a file) was not found. */
  static resourceNotFound(uri?: string): RequestError {
    return new RequestError(
      ErrorCodes.resourceNotFound,
      uri ? `Resource not found: ${uri}` : "Resource not found",
      uri ? { uri } : undefined,
    );
  }

  /** -32002: the session named by a session-scoped request does not exist or is not active on this connection. */
  static sessionNotFound(sessionId: string): RequestError {
    return new RequestError(ErrorCodes.resourceNotFound, "Resource not found", { sessionId });
  }

  /** -32022: no supported protocol version is at or below the requested one; `data` lists both. */
  static unsupportedProtocolVersion(requested: number, supported: readonly number[]): RequestError {
    return new RequestError(-32022, "Unsupported protocol version", { requested, supported: [...supported] });
  }

  /** The error as a JSON-RPC result body. */
  toResult<T>(): Result<T> {
    return { error: this.toErrorResponse() };
  }

  /** The error as the `error` member of a response. */
  toErrorResponse(): ErrorResponse {
    const error: ErrorResponse = { code: this.code, message: this.message };
    if (this.data !== undefined) error.data = this.data;
    return error;
  }

  /** Rebuilds a `RequestError` from a received error response. */
  static fromErrorResponse(error: ErrorResponse): RequestError {
    return new RequestError(error.code, error.message, error.data);
  }
}
