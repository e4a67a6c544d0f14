/**
 * The body of an SSE response: each message a reader takes as one event (`id:` then `data:`), keep-alive comments
 * while idle.
 *
 * The body takes events from its reader only when its consumer asks for bytes (no high-water mark), so what the
 * client has not read stays queued and counted by its connection: backpressure reaches the agent. Events ready
 * together leave in one chunk (up to `BATCH_CHARS`), which is what makes streaming fast.
 *
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { StreamReader } from "./backend/backend.js";

/** About how many UTF-16 units of JSON one chunk carries when messages are waiting. */
const BATCH_CHARS = 64 * 1024;
/** An SSE comment: ignored by clients, keeps proxies and NATs from timing the stream out. */
const KEEP_ALIVE = ":\n\n";

/** Options of `sseBody`. */
export interface SseBodyOptions {
  /** Interval of keep-alive comments while nothing else is sent. */
  keepAliveMs: number;
  /** Called once when the body ends, for whatever reason (stream ended, consumer cancelled). */
  onClose(): void;
}

/**
 * A byte stream of the reader's events as SSE events. Ends cleanly when the reader has ended (its stream ended, or
 * another reader took it over); the consumer cancelling releases the reader and leaves the rest for the next one.
 */
export function sseBody(reader: StreamReader, options: SseBodyOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let lastSent = Date.now();
  let waiting = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let done = false;
  let chunk = "";
  // Each event with its id: a cursor, which the client sends back as Last-Event-ID when it reconnects.
  // An id with no message (a backend's checkpoint) moves the client's position without an event.
  const sink = (id: string | undefined, json: string): void => {
    if (id === undefined) chunk += `data: ${json}\n\n`;
    else if (json === "") chunk += `id: ${id}\n\n`;
    else chunk += `id: ${id}\ndata: ${json}\n\n`;
  };
  const finish = () => {
    if (done) return;
    done = true;
    if (timer !== undefined) clearInterval(timer);
    reader.release();
    options.onClose();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        timer = setInterval(() => {
          // Only a consumer waiting for bytes needs a keep-alive; one that is not reading is not helped by more.
          if (done || !waiting || Date.now() - lastSent < options.keepAliveMs) return;
          lastSent = Date.now();
          controller.enqueue(encoder.encode(KEEP_ALIVE));
        }, options.keepAliveMs);
        (timer as { unref?: () => void }).unref?.();
      },
      async pull(controller) {
        for (;;) {
          if (done) return;
          if (reader.take(BATCH_CHARS, sink) > 0) {
            const text = chunk;
            chunk = "";
            lastSent = Date.now();
            controller.enqueue(encoder.encode(text));
            return;
          }
          if (reader.ended) {
            finish();
            controller.close();
            return;
          }
          waiting = true;
          await reader.wait();
          waiting = false;
        }
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0 },
  );
}
