/**
 * A bare Streamable HTTP client for the server's unit tests: builds `Request`s, calls `handleRequest` in process,
 * and reads SSE response bodies event by event. No fetch, no sockets.
 */
import type { AcpServer, HandleRequestOptions } from "../acp-server.js";

export const BASE = "http://127.0.0.1:8123/acp";
export const LOOPBACK_SOCKET = { localAddress: "127.0.0.1", localPort: 8123, remoteAddress: "127.0.0.1" };

export interface Call {
  method?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  url?: string;
}

export function request(call: Call): Request {
  const method = call.method ?? "POST";
  const headers: Record<string, string> = {
    host: "127.0.0.1:8123",
    ...(method === "POST" ? { "content-type": "application/json" } : {}),
    ...call.headers,
  };
  const body = call.rawBody ?? (call.body === undefined ? undefined : JSON.stringify(call.body));
  return new Request(call.url ?? BASE, { method, headers, body });
}

export function send(
  server: AcpServer,
  call: Call,
  options: HandleRequestOptions = { socket: LOOPBACK_SOCKET },
): Promise<Response> {
  return server.handleRequest(request(call), options);
}

export const initializeMessage = (id: number | string = 0) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
});

/** POSTs initialize; returns the connection id and the answer. */
export async function initialize(
  server: AcpServer,
  headers: Record<string, string> = {},
): Promise<{ connectionId: string; answer: any; response: Response }> {
  const response = await send(server, { body: initializeMessage(), headers });
  if (response.status !== 200) throw new Error(`initialize: ${response.status} ${await response.text()}`);
  const connectionId = response.headers.get("acp-connection-id")!;
  return { connectionId, answer: await response.json(), response };
}

/** One SSE event: its id (undefined when it had none) and its parsed data. */
export interface SseEvent {
  id: string | undefined;
  data: any;
}

/**
 * Reads an SSE body: `next()` resolves with the next event's parsed data (comments skipped), or undefined at the end.
 */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #events: SseEvent[] = [];
  #done = false;
  /** The id of the last event returned. */
  lastId: string | undefined;

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  async next(): Promise<any> {
    return (await this.nextEvent())?.data;
  }

  /** The next event with its id, or undefined at the end. */
  async nextEvent(): Promise<SseEvent | undefined> {
    for (;;) {
      if (this.#events.length > 0) {
        const event = this.#events.shift()!;
        if (event.id !== undefined) this.lastId = event.id;
        return event;
      }
      if (this.#done) return undefined;
      const { value, done } = await this.#reader.read();
      if (done) {
        this.#done = true;
        continue;
      }
      this.#buffer += this.#decoder.decode(value, { stream: true });
      let end: number;
      while ((end = this.#buffer.indexOf("\n\n")) !== -1) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const lines = block.split("\n");
        const data = lines
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        const idLine = lines.find((line) => line.startsWith("id:"));
        const id = idLine === undefined ? undefined : idLine.slice(3).trimStart();
        if (data) this.#events.push({ id, data: JSON.parse(data) });
      }
    }
  }

  /** Reads until an event matches. */
  async until(test: (event: any) => boolean): Promise<any[]> {
    const seen: any[] = [];
    for (;;) {
      const event = await this.next();
      if (event === undefined)
        throw new Error(`the stream ended before the expected event; saw ${JSON.stringify(seen).slice(0, 500)}`);
      seen.push(event);
      if (test(event)) return seen;
    }
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** Opens an SSE stream (the connection's, or a session's), from `lastEventId` when given. */
export async function openStream(
  server: AcpServer,
  connectionId: string,
  sessionId?: string,
  lastEventId?: string,
): Promise<SseReader> {
  const response = await getStream(server, connectionId, sessionId, lastEventId);
  if (response.status !== 200) throw new Error(`GET: ${response.status} ${await response.text()}`);
  return new SseReader(response);
}

/** GETs an SSE stream and returns the response as it is (for statuses). */
export function getStream(
  server: AcpServer,
  connectionId: string,
  sessionId?: string,
  lastEventId?: string,
): Promise<Response> {
  const headers: Record<string, string> = { accept: "text/event-stream", "acp-connection-id": connectionId };
  if (sessionId) headers["acp-session-id"] = sessionId;
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  return send(server, { method: "GET", headers });
}

/** POSTs one message on a connection (and session). */
export function post(server: AcpServer, connectionId: string, message: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = { "acp-connection-id": connectionId };
  if (sessionId) headers["acp-session-id"] = sessionId;
  return send(server, { body: message, headers });
}
