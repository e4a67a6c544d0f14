/**
 * The one WebSocket shape both ends of the remote layer accept: the platform `WebSocket` (browsers, Deno, Bun,
 * Node >= 22), which reports events through `addEventListener`, and an event emitter such as the `ws` package's,
 * whose `message` listener gets `(data, isBinary)`. Same names as the official SDK's `WebSocketLike` and
 * `WebSocketConstructor`. The client's event normalization is in ./client/websocket-events.ts, the server's
 * extras (flow control) in ./server/server-websocket.ts.
 */

/** A browser- or `ws`-style WebSocket, as much of it as acpkit's client transport and server use. */
export interface WebSocketLike {
  readonly readyState?: number;
  /**
   * Bytes passed to `send()` and not yet sent. The client's `drain()` waits on it where the socket reports it; the
   * server stops taking agent output while it holds `maxBufferedBytes`.
   */
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

/**
 * Subscribes `listener` to `type`, emitter style (`on`, listener gets the event's arguments) when the socket has
 * that, else event-target style (listener gets the event); returns the unsubscribe. Throws a `TypeError` for an
 * object that is neither.
 */
export function onSocketEvent(socket: WebSocketLike, type: string, listener: (...args: unknown[]) => void): () => void {
  if (typeof socket.on === "function") {
    socket.on(type, listener);
    return () => {
      if (typeof socket.off === "function") socket.off(type, listener);
      else socket.removeListener?.(type, listener);
    };
  }
  if (typeof socket.addEventListener === "function") {
    const handler = (event: unknown) => listener(event);
    socket.addEventListener(type, handler);
    return () => socket.removeEventListener?.(type, handler);
  }
  throw new TypeError(
    "This WebSocket has neither on() nor addEventListener(): pass a platform WebSocket or one of Node's ws package.",
  );
}

const decoder = new TextDecoder();

/**
 * A text frame's payload as a string: a string as it is, bytes (`ws` hands Buffers, or arrays of them for a
 * fragmented frame; an `ArrayBuffer` or any view) decoded as UTF-8. Anything else is `undefined`.
 */
export function frameText(data: unknown): string | undefined {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return decoder.decode(new Uint8Array(data));
  if (ArrayBuffer.isView(data)) return decoder.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  if (Array.isArray(data) && data.every((part) => ArrayBuffer.isView(part))) {
    const parts = data as ArrayBufferView[];
    const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      whole.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), offset);
      offset += part.byteLength;
    }
    return decoder.decode(whole);
  }
  return undefined;
}
