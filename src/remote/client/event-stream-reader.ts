/**
 * Reads one SSE response body to its end: bytes through the `SseParser`, each event's data to a callback, in
 * order. A callback may return a promise to hold the events after it back (ordering across streams); `gate`
 * holds reading back while the consumer is paused (flow control). Says whether the server ended the stream (its end
 * event, `STREAM_END_EVENT`, came last) or the body just stopped (cut). Browser-safe.
 */
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
): Promise<EventStreamEnd> {
  const events: Pending[] = [];
  /** The end event was the last thing read (anything after it, were there anything, would clear it). */
  let endSeen = false;
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
  });
  const position = sink.position;
  let lastEventId = "";
  const reader = body.getReader();
  try {
    for (;;) {
      const paused = gate();
      if (paused !== undefined) await paused;
      if (stopped()) return "stopped";
      const { done, value } = await reader.read();
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
