/**
 * The WebSocket shapes the remote client accepts: the platform's (browsers, Node >= 22) and Node's `ws`, which
 * differ in how they report events. Same names as the official SDK's `WebSocketLike` and `WebSocketConstructor`.
 */

/** A browser- or `ws`-style WebSocket, as much of it as the transport uses. */
export interface WebSocketLike {
  readonly readyState?: number;
  /** Bytes passed to `send()` and not yet sent; `drain()` waits on it where the socket reports it. */
  readonly bufferedAmount?: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener?(type: string, listener: (event: unknown) => void): void;
  removeEventListener?(type: string, listener: (event: unknown) => void): void;
  on?(type: string, listener: (...args: unknown[]) => void): unknown;
  off?(type: string, listener: (...args: unknown[]) => void): unknown;
  removeListener?(type: string, listener: (...args: unknown[]) => void): unknown;
}

/** A WebSocket constructor: the platform's, or one that also takes headers (Node's `ws`). */
export interface WebSocketConstructor {
  new (url: string, protocols?: string | string[], options?: { headers?: Record<string, string> }): WebSocketLike;
}

/** What a socket reports, normalized. */
export interface SocketEvents {
  open(): void;
  /** A text frame (binary frames are dropped before this). */
  text(data: string): void;
  close(code: number, reason: string): void;
  error(error: unknown): void;
  /** The 101's headers, where the socket exposes them (`ws`). */
  upgrade?(headers: Headers): void;
}

const decoder = new TextDecoder();

/** Subscribes to a socket's events, `ws`-style (`on`) when it has that, else DOM-style; returns the unsubscriber. */
export function listen(socket: WebSocketLike, events: SocketEvents): () => void {
  const offs: Array<() => void> = [];
  if (typeof socket.on === "function") {
    const on = (type: string, listener: (...args: unknown[]) => void) => {
      socket.on!(type, listener);
      offs.push(() => (socket.off ?? socket.removeListener)?.call(socket, type, listener));
    };
    on("open", () => events.open());
    on("message", (data, isBinary) => {
      if (isBinary === true) return;
      const text = textOf(data);
      if (text !== undefined) events.text(text);
    });
    on("close", (code, reason) => events.close(typeof code === "number" ? code : 1005, textOf(reason) ?? ""));
    on("error", (error) => events.error(error));
    on("upgrade", (response) => events.upgrade?.(headersOf((response as { headers?: unknown })?.headers)));
  } else if (typeof socket.addEventListener === "function") {
    const on = (type: string, listener: (event: unknown) => void) => {
      socket.addEventListener!(type, listener);
      offs.push(() => socket.removeEventListener?.(type, listener));
    };
    on("open", () => events.open());
    on("message", (event) => {
      const data = (event as { data?: unknown }).data;
      if (typeof data === "string") events.text(data); // Blob and ArrayBuffer: binary frames, ignored
    });
    on("close", (event) => {
      const { code, reason } = event as { code?: number; reason?: string };
      events.close(code ?? 1005, reason ?? "");
    });
    on("error", (event) => events.error((event as { error?: unknown }).error ?? event));
  } else {
    throw new TypeError(
      "This WebSocket has neither on() nor addEventListener(): pass a browser WebSocket or Node's ws.",
    );
  }
  return () => {
    for (const off of offs.splice(0)) off();
  };
}

/** A text frame's payload as a string (`ws` hands Buffers, or arrays of them as fragments). */
function textOf(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (data instanceof Uint8Array) return decoder.decode(data);
  if (data instanceof ArrayBuffer) return decoder.decode(new Uint8Array(data));
  if (Array.isArray(data) && data.every((part) => part instanceof Uint8Array)) {
    const parts = data as Uint8Array[];
    const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      joined.set(part, offset);
      offset += part.length;
    }
    return decoder.decode(joined);
  }
  return undefined;
}

/** Node-style header records (arrays for repeated headers) as `Headers`. */
function headersOf(record: unknown): Headers {
  const headers = new Headers();
  if (typeof record !== "object" || record === null) return headers;
  for (const [name, value] of Object.entries(record as Record<string, unknown>)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, String(item));
    else if (value !== undefined) headers.set(name, String(value));
  }
  return headers;
}

/** The HTTP status in `ws`'s "Unexpected server response: 426" error, if that is what it is. */
export function refusedStatus(error: unknown): number | undefined {
  const match = /Unexpected server response: (\d{3})/.exec(error instanceof Error ? error.message : String(error));
  return match ? Number(match[1]) : undefined;
}

/** What a close code means, for messages. */
export function describeCloseCode(code: number): string {
  const names: Record<number, string> = {
    1000: "normal closure",
    1001: "going away",
    1002: "protocol error",
    1003: "unsupported data",
    1005: "no status",
    1006: "abnormal closure: the connection dropped",
    1007: "invalid payload",
    1008: "policy violation",
    1009: "message too big",
    1011: "server error",
    1012: "service restart",
    1013: "try again later",
  };
  return names[code] ?? "unknown code";
}
