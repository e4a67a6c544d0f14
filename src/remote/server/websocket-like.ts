/**
 * The WebSocket shapes a server accepts: the platform `WebSocket` (browsers, Deno, Bun, Node 22) with
 * `addEventListener`, or an event emitter such as the `ws` package's, whose `message` listener gets
 * `(data, isBinary)`. Same minimal shape as the official SDK 2.4.0's `WebSocketLike`, plus optional extras an adapter
 * may add for backpressure.
 */

/** A server-side WebSocket. */
export interface WebSocketLike {
  readonly readyState?: number;
  /** Bytes passed to `send()` not yet sent; the server stops taking agent output while this holds `maxBufferedBytes`. */
  readonly bufferedAmount?: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener?(type: string, listener: (event: unknown) => void): void;
  removeEventListener?(type: string, listener: (event: unknown) => void): void;
  on?(type: string, listener: (...args: unknown[]) => void): unknown;
  off?(type: string, listener: (...args: unknown[]) => void): unknown;
  removeListener?(type: string, listener: (...args: unknown[]) => void): unknown;
}

/** Optional extras (the Node adapter provides them): stop reading from the client, and learn when output drained. */
export interface WebSocketFlowControl {
  pause?(): void;
  resume?(): void;
  /** Resolves the next time the socket's send buffer drained (or it closed). */
  whenDrained?(): Promise<void>;
}

/** A server socket with its optional extras. */
export type ServerWebSocket = WebSocketLike & WebSocketFlowControl;

/** Subscribes `listener` to `type`, emitter or event-target style; returns the unsubscribe. */
export function onSocket(socket: WebSocketLike, type: string, listener: (...args: unknown[]) => void): () => void {
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
    "This WebSocket has neither on() nor addEventListener(): pass a ws WebSocket or a platform WebSocket.",
  );
}

const decoder = new TextDecoder();

/** The text of a `message` event's arguments, or `undefined` for a binary frame (which ACP ignores). */
export function textOfMessage(args: readonly unknown[]): string | undefined {
  const [first, second] = args;
  if (typeof second === "boolean") {
    // ws: (data, isBinary)
    if (second) return undefined;
    return typeof first === "string" ? first : decodeData(first);
  }
  if (typeof first === "object" && first !== null && "data" in first) {
    const data = (first as { data: unknown }).data;
    return typeof data === "string" ? data : undefined;
  }
  return typeof first === "string" ? first : undefined;
}

function decodeData(data: unknown): string | undefined {
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return decoder.decode(data as ArrayBuffer);
  if (Array.isArray(data) && data.every((part) => ArrayBuffer.isView(part))) {
    const parts = data as ArrayBufferView[];
    const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
    const whole = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      whole.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), offset);
      offset += part.byteLength;
    }
    return decoder.decode(whole);
  }
  return undefined;
}
