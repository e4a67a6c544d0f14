/**
 * A bare Streamable HTTP client for the cluster scenarios: each call names the node (a base URL) it goes to, so a
 * scenario can send the initialize, each POST, each stream and the DELETE of one connection to different nodes.
 * Events are parsed by the library's SSE parser, with their ids. Nothing here runs on its own.
 */
import { SseParser } from "../../../../src/remote/client/sse-parser.js";

/** The nodes of a cluster: the ACP endpoint URL of each (at least three), and the bearer token if one is needed. */
export interface ClusterTarget {
  readonly nodes: readonly string[];
  readonly token?: string;
}

/** How long a scenario waits for one event before it fails, saying what it waited for. */
export const EVENT_TIMEOUT_MS = 20_000;

export interface Routing {
  readonly connectionId?: string;
  readonly sessionId?: string;
  readonly lastEventId?: string;
}

function headers(target: ClusterTarget, routing: Routing, extra: Record<string, string>): Record<string, string> {
  return {
    ...extra,
    ...(target.token === undefined ? {} : { authorization: `Bearer ${target.token}` }),
    ...(routing.connectionId === undefined ? {} : { "acp-connection-id": routing.connectionId }),
    ...(routing.sessionId === undefined ? {} : { "acp-session-id": routing.sessionId }),
    ...(routing.lastEventId === undefined ? {} : { "last-event-id": routing.lastEventId }),
  };
}

/** POSTs one JSON-RPC message to `node`; the response with its text read. */
export async function post(
  target: ClusterTarget,
  node: string,
  message: unknown,
  routing: Routing = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(node, {
    method: "POST",
    headers: headers(target, routing, {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    }),
    body: JSON.stringify(message),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** DELETEs a connection on `node`; the status. */
export async function del(target: ClusterTarget, node: string, connectionId: string): Promise<number> {
  const response = await fetch(node, { method: "DELETE", headers: headers(target, { connectionId }, {}) });
  await response.body?.cancel();
  return response.status;
}

/** One event of a stream: its id ("" when it had none) and its parsed data. */
export interface StreamEvent {
  readonly id: string;
  readonly data: any;
}

/** An open SSE stream on one node. */
export class EventStream {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #parser: SseParser;
  readonly #events: StreamEvent[] = [];
  #ended = false;
  /** The id of the last event returned by `next()`. */
  lastId = "";

  constructor(
    readonly node: string,
    response: Response,
    readonly what: string,
  ) {
    this.#reader = response.body!.getReader();
    this.#parser = new SseParser(64 * 1024 * 1024, {
      data: (data, id) => this.#events.push({ id, data: JSON.parse(data) }),
      tooLarge: () => {
        throw new Error(`an event on ${what} is over 64 MiB`);
      },
    });
  }

  /** The next event, or undefined when the server ended the stream; fails after `timeoutMs` without one. */
  async next(timeoutMs = EVENT_TIMEOUT_MS): Promise<StreamEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const event = this.#events.shift();
      if (event !== undefined) {
        this.lastId = event.id;
        return event;
      }
      if (this.#ended) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no event on ${this.what} (${this.node}) within ${timeoutMs} ms`)),
          Math.max(0, deadline - Date.now()),
        );
      });
      try {
        const { done, value } = await Promise.race([this.#reader.read(), timeout]);
        if (done) {
          this.#parser.end();
          this.#ended = true;
        } else this.#parser.push(value);
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** The next event, which must be there; `describe` says what was expected. */
  async expect(describe: string): Promise<StreamEvent> {
    const event = await this.next();
    if (event === undefined) throw new Error(`${this.what} (${this.node}) ended before ${describe}`);
    return event;
  }

  /** Drops the response (as a client whose connection broke). */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** GETs a stream on `node`: the stream, or the refusal's status and text. */
export async function open(
  target: ClusterTarget,
  node: string,
  routing: Routing & { connectionId: string },
): Promise<EventStream | { status: number; text: string }> {
  const response = await fetch(node, {
    method: "GET",
    headers: headers(target, routing, { accept: "text/event-stream" }),
  });
  if (response.status !== 200) return { status: response.status, text: await response.text() };
  const what = routing.sessionId === undefined ? "the connection stream" : `the stream of ${routing.sessionId}`;
  return new EventStream(node, response, what);
}

/** GETs a stream that must open. */
export async function mustOpen(
  target: ClusterTarget,
  node: string,
  routing: Routing & { connectionId: string },
): Promise<EventStream> {
  const opened = await open(target, node, routing);
  if (!(opened instanceof EventStream))
    throw new Error(`GET on ${node} ${JSON.stringify(routing)}: ${opened.status} ${opened.text}`);
  return opened;
}
