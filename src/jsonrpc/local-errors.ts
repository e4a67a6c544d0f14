/**
 * Local errors: failures on this side of the connection. They never cross the wire
 * (a peer only ever sees `RequestError`s), and every one says what went wrong and what to do.
 */

/** What kind of local failure this is. */
export type LocalErrorKind =
  | "connection_closed"
  | "timeout"
  | "message_too_large"
  | "unserializable"
  | "invalid_response"
  | "capability_missing"
  | "response_lost"
  | "transport_failed"
  | "output_backlog"
  | "dependency_missing"
  | "database_unavailable"
  | "database_schema"
  | "protocol_version";

/** Base class of every local error. Check `kind` (or `instanceof` a subclass) to tell them apart. */
export class LocalError extends Error {
  readonly kind: LocalErrorKind;

  constructor(kind: LocalErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LocalError";
    this.kind = kind;
  }
}

/**
 * The connection closed (by `close()`, by the peer going away, or by a transport failure) while this call
 * was pending or before it was sent. `cause` carries the reason given to `close()` or the transport error.
 *
 * The message starts with the official SDK's "ACP connection closed" and includes the cause's message, so code
 * written for the official SDK (`toThrow("ACP connection closed")`, `toThrow("write failed")`) keeps working.
 */
export class ConnectionClosedError extends LocalError {
  /** What closed it, without the surrounding words: "the peer closed the connection (end of input)". */
  readonly detail: string;

  constructor(detail: string, cause?: unknown) {
    // One period: a detail quoting an error that ends its own sentence ("...the connection.") is not followed by "..".
    super(
      "connection_closed",
      `ACP connection closed: ${detail.replace(/\.+$/, "")}. Open a new connection to continue.`,
      { cause },
    );
    this.name = "ConnectionClosedError";
    this.detail = detail;
  }
}

/** A request got no response within its timeout. A `$/cancel_request` was sent to the peer. */
export class RequestTimeoutError extends LocalError {
  readonly method: string;
  readonly timeoutMs: number;

  constructor(method: string, timeoutMs: number) {
    super(
      "timeout",
      `No response to "${method}" within ${timeoutMs} ms; a $/cancel_request was sent. ` +
        "Raise the timeout (the timeoutMs option) if the peer is just slow, or check that it is still running.",
    );
    this.name = "RequestTimeoutError";
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A message was larger than the configured limit. Incoming: the frame was skipped and the connection stays up.
 * Outgoing: the message was not sent. Raise `maxMessageBytes` if such messages are expected.
 */
export class MessageTooLargeError extends LocalError {
  readonly maxMessageBytes: number;
  readonly messageBytes: number | undefined;

  constructor(maxMessageBytes: number, messageBytes?: number, direction: "incoming" | "outgoing" = "incoming") {
    super(
      "message_too_large",
      `${direction === "incoming" ? "An incoming" : "An outgoing"} message of ` +
        `${messageBytes ?? "more than " + maxMessageBytes} bytes ` +
        `exceeds the ${maxMessageBytes}-byte limit and was ${direction === "incoming" ? "skipped" : "not sent"}. ` +
        "Raise maxMessageBytes if messages this large are expected.",
    );
    this.name = "MessageTooLargeError";
    this.maxMessageBytes = maxMessageBytes;
    this.messageBytes = messageBytes;
  }
}

/** A value passed to `request()`/`notify()` or returned by a handler cannot be serialized to JSON. Nothing was sent. */
export class UnserializableValueError extends LocalError {
  constructor(what: string, cause: unknown) {
    super(
      "unserializable",
      `Cannot serialize ${what} to JSON (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "Pass plain JSON data: no BigInt, cycles or functions.",
      { cause },
    );
    this.name = "UnserializableValueError";
  }
}

/** The peer answered with a response that does not match the method's result schema. */
export class InvalidResponseError extends LocalError {
  readonly method: string;
  readonly issues: unknown;

  constructor(method: string, detail: string, issues?: unknown) {
    super(
      "invalid_response",
      `The peer's response to "${method}" is not valid: ${detail}. The peer does not follow the protocol ` +
        `schema; report it to its authors.`,
    );
    this.name = "InvalidResponseError";
    this.method = method;
    this.issues = issues;
  }
}

/** The peer did not advertise the capability a method needs; the request was not sent. */
export class CapabilityMissingError extends LocalError {
  readonly method: string;
  readonly capability: string;

  constructor(method: string, capability: string) {
    super(
      "capability_missing",
      `"${method}" needs the peer's capability ${capability}, which it did not advertise in initialize. ` +
        "Check peerSupports() before calling, or fall back to another way.",
    );
    this.name = "CapabilityMissingError";
    this.method = method;
    this.capability = capability;
  }
}

/**
 * The response to a request this side sent can no longer arrive: the transport lost the way back (a remote
 * stream closed, the link dropped and was re-established). The peer may or may not have acted on the request.
 */
export class ResponseLostError extends LocalError {
  readonly method: string;

  constructor(method: string, detail: string, cause?: unknown) {
    super(
      "response_lost",
      `The response to "${method}" was lost: ${detail}. The peer may or may not have acted on it; ` +
        "check its state (e.g. load the session again) before repeating the request.",
      { cause },
    );
    this.name = "ResponseLostError";
    this.method = method;
  }
}

/**
 * A remote transport failed: the server refused the connection (an HTTP status), could not be reached, or closed
 * it. `status` is the HTTP status when there was one, `closeCode` the WebSocket close code when there was one.
 */
export class TransportFailedError extends LocalError {
  readonly status: number | undefined;
  readonly closeCode: number | undefined;

  constructor(message: string, details: { status?: number; closeCode?: number; cause?: unknown } = {}) {
    super("transport_failed", message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "TransportFailedError";
    this.status = details.status;
    this.closeCode = details.closeCode;
  }
}

/**
 * A request or notification was not sent because the peer is not reading: the output already queued for it is
 * at the link's `maxBufferedBytes`. Only sends that do not wait hit this (an awaited `notify()`, a
 * `sessionUpdate` or a drained writer is held at the high-water mark instead); replies to the peer's requests are
 * never refused (the link stops reading the peer's input while they are backed up). Nothing was queued.
 */
export class OutputBacklogError extends LocalError {
  /** The method of the message that was not sent. */
  readonly method: string;
  /** Output queued for the peer when the message was refused (UTF-16 units of JSON text, about bytes). */
  readonly bufferedBytes: number;
  readonly maxBufferedBytes: number;

  constructor(method: string, bufferedBytes: number, maxBufferedBytes: number) {
    super(
      "output_backlog",
      `"${method}" was not sent: ${bufferedBytes} bytes of output are already queued for the peer, at the ` +
        `${maxBufferedBytes}-byte limit (maxBufferedBytes); the peer is not reading. Await your sends (notify(), ` +
        "sessionUpdate(), request()) so that they wait for the peer, or raise maxBufferedBytes.",
    );
    this.name = "OutputBacklogError";
    this.method = method;
    this.bufferedBytes = bufferedBytes;
    this.maxBufferedBytes = maxBufferedBytes;
  }
}

/**
 * The peer answered `initialize` with a protocol version this side cannot speak (a v2-only client meeting an agent
 * that chose v1). The connection is closed with it: connect again with a client of the version the peer chose
 * (ACP v1: acpkit's root entry).
 */
export class ProtocolVersionError extends LocalError {
  /** The version this side asked for and speaks. */
  readonly requested: number;
  /** The version the peer answered with. */
  readonly received: unknown;

  constructor(requested: number, received: unknown) {
    super(
      "protocol_version",
      `The agent answered initialize with protocolVersion ${JSON.stringify(received)}, but this connection ` +
        `speaks only ` +
        `ACP v${requested}. Use a client for the version the agent chose (ACP v1: acpkit's root entry) or negotiate ` +
        "the version first.",
    );
    this.name = "ProtocolVersionError";
    this.requested = requested;
    this.received = received;
  }
}
