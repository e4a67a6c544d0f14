/**
 * The WebSocket a server accepts: any `WebSocketLike` (../websocket-like.ts, the official SDK 2.4.0's minimal
 * shape), plus optional extras an adapter may add for backpressure.
 */
import { frameText, type WebSocketLike } from "../websocket-like.js";

/** Optional extras (the Node adapter provides them): stop reading from the client, and learn when output drained. */
export interface WebSocketFlowControl {
  pause?(): void;
  resume?(): void;
  /** Resolves the next time the socket's send buffer drained (or it closed). */
  whenDrained?(): Promise<void>;
}

/** A server socket with its optional extras. */
export type ServerWebSocket = WebSocketLike & WebSocketFlowControl;

/** The text of a `message` event's arguments, or `undefined` for a binary frame (which ACP ignores). */
export function textOfMessage(args: readonly unknown[]): string | undefined {
  const [first, second] = args;
  if (typeof second === "boolean") {
    // ws: (data, isBinary)
    if (second) return undefined;
    return frameText(first);
  }
  if (typeof first === "object" && first !== null && "data" in first) {
    const data = (first as { data: unknown }).data;
    return typeof data === "string" ? data : undefined;
  }
  return typeof first === "string" ? first : undefined;
}
