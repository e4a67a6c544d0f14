/**
 * Reads one SSE response body to its end: bytes through the `SseParser`, each event's data to a callback, in
 * order. A callback may return a promise to hold the events after it back (ordering across streams); `gate`
 * holds reading back while the consumer is paused (flow control). Says whether the server ended the stream (its end
 * event, `STREAM_END_EVENT`, came last) or the body just stopped (cut). With a silence bound, a stream whose server
 * has shown that it sends keep-alive comments and then sends nothing at all for that long fails with
 * `EventStreamSilentError` (the server stopped, froze or was cut off without a FIN: TCP alone would wait for hours).
 * Browser-safe.
 */
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import { STREAM_END_EVENT } from "../http-protocol.js";
import { SseParser } from "./sse-parser.js";

/** Where the events of one stream go. */
export interface EventStreamSink {
  /** One event's data; a returned promise delays the next event until it settles. */
  event(data: string): void | Promise<void>;
  /** An event over the size limit was skipped. */
  tooLarge(bytes: number, head: string): void;
  /**
   * The last event ID once an event is handled (after `event`'s promise settled), when the stream gives ids: where a
   * reconnect resumes (`Last-Event-ID`).
   */
  position?(lastEventId: string): void;
}

type Pending = { data: string } | { bytes: number; head: string };

/**
 * A stream whose server had sent keep-alive comments sent nothing, not even one, for `silenceMs`: the read is given
 * up. A local error (the link resumes the stream, or fails with it).
 */
export class EventStreamSilentError extends TransportFailedError {
  constructor(readonly silenceMs: number) {
    super(
      `The ACP server sent nothing on an event stream for ${Math.round(silenceMs / 1000)} s, not even the ` +
        "keep-alive comments it had been sending: it stopped, froze or was cut off. Check that it is running and " +
        "reachable.",
    );
    this.name = "EventStreamSilentError";
  }
}

/**
 * How a body ended: `"ended"` when the server's end event came last (it ended the stream on purpose), `"cut"` when
 * the body stopped without it (a node that died, a proxy: the stream may go on elsewhere), `"stopped"` when
 * `stopped()` became true.
 */
export type EventStreamEnd = "ended" | "cut" | "stopped";

/**
 * Resolves when the body ends (see `EventStreamEnd`), rejects when reading fails (network, abort). `stopped()` is
 * checked after every await: once it is true nothing more is delivered and reading stops.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  maxMessageBytes: number,
  sink: EventStreamSink,
  gate: () => Promise<void> | undefined,
  stopped: () => boolean,
  silenceMs?: number,
): Promise<EventStreamEnd> {
  const events: Pending[] = [];
  /** The end event was the last thing read (anything after it, were there anything, would clear it). */
  let endSeen = false;
  /**
   * Whether the server sends keep-alive comments (it sent one): only then is silence a sign of trouble, and not of a
   * server that sends nothing while a long turn runs.
   */
  let keepsAlive = false;
  const parser = new SseParser(maxMessageBytes, {
    data: (data) => {
      endSeen = false;
      events.push({ data });
    },
    tooLarge: (bytes, head) => {
      endSeen = false;
      events.push({ bytes, head });
    },
    signal: (type) => (endSeen = type === STREAM_END_EVENT),
    comment: () => (keepsAlive = true),
  });
  const position = sink.position;
  let lastEventId = "";
  const reader = body.getReader();
  try {
    for (;;) {
      const paused = gate();
      if (paused !== undefined) await paused;
      if (stopped()) return "stopped";
      // Only the time spent waiting for the server counts: not the consumer's pauses above.
      const { done, value } =
        silenceMs === undefined || !keepsAlive ? await reader.read() : await readWithin(reader, silenceMs);
      if (stopped()) return "stopped";
      if (done) {
        parser.end();
        return endSeen ? "ended" : "cut";
      }
      parser.push(value);
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        if ("data" in event) {
          const held = sink.event(event.data);
          if (held !== undefined) await held;
        } else sink.tooLarge(event.bytes, event.head);
        if (stopped()) return "stopped";
      }
      events.length = 0;
      // Once per chunk, when every event of it was handled (a read can only break between chunks): the parser's last
      // event id is then the id of the last event handled (or of an event without data after it).
      if (position !== undefined && parser.lastEventId !== lastEventId) position((lastEventId = parser.lastEventId));
    }
  } finally {
    void reader.cancel().catch(() => {});
  }
}

/** One read, or `EventStreamSilentError` when nothing came within `silenceMs` (the reader is then cancelled). */
function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  silenceMs: number,
): ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new EventStreamSilentError(silenceMs));
      void reader.cancel().catch(() => {});
    }, silenceMs);
    reader.read().then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
