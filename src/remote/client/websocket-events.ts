/**
 * The events of a client WebSocket, normalized: the platform's (browsers, Node >= 22) and Node's `ws` report them
 * differently (`WebSocketLike` in ../websocket-like.ts is the shape both have).
 */
import { frameText, onSocketEvent, type WebSocketLike } from "../websocket-like.js";

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

/** Subscribes to a socket's events, `ws`-style (`on`) when it has that, else DOM-style; returns the unsubscriber. */
export function listen(socket: WebSocketLike, events: SocketEvents): () => void {
  const offs: Array<() => void> = [];
  const on = (type: string, listener: (...args: unknown[]) => void) => offs.push(onSocketEvent(socket, type, listener));
  if (typeof socket.on === "function") {
    // ws: events are arguments.
    on("open", () => events.open());
    on("message", (data, isBinary) => {
      if (isBinary === true) return;
      const text = frameText(data);
      if (text !== undefined) events.text(text);
    });
    on("close", (code, reason) => events.close(typeof code === "number" ? code : 1005, frameText(reason) ?? ""));
    on("error", (error) => events.error(error));
    on("upgrade", (response) => events.upgrade?.(headersOf((response as { headers?: unknown })?.headers)));
  } else {
    // The platform's: events are objects (a throw for an object that is neither comes from onSocketEvent).
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
  }
  return () => {
    for (const off of offs.splice(0)) off();
  };
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
