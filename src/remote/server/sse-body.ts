/**
 * The body of an SSE response: the events a reader takes (SSE bytes, each event with its `id:`), keep-alive comments
 * while idle.
 *
 * The body takes events from its reader only when its consumer asks for bytes (no high-water mark), so what the
 * client has not read stays queued and counted by its connection: backpressure reaches the agent. Events ready
 * together leave in one chunk (up to `BATCH_CHARS`), which is what makes streaming fast.
 *
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { STREAM_END_EVENT } from "../http-protocol.js";
import type { StreamReader } from "./backend/backend.js";
import { encodeSse } from "./sse-format.js";

/** About how many UTF-16 units of JSON one chunk carries when messages are waiting. */
const BATCH_CHARS = 64 * 1024;
/** An SSE comment: ignored by clients, keeps proxies and NATs from timing the stream out. */
const KEEP_ALIVE = encodeSse(":\n\n");
/** The last event of a stream the server ends on purpose: without it, a client knows its stream was cut. */
const END = encodeSse(`event: ${STREAM_END_EVENT}\n\n`);

/** Options of `sseBody`. */
export interface SseBodyOptions {
  /** Interval of keep-alive comments while nothing else is sent. */
  keepAliveMs: number;
  /** Called once when the body ends, for whatever reason (stream ended, consumer cancelled). */
  onClose(): void;
}

/**
 * A byte stream of the reader's events as SSE events. Ends cleanly when the reader has ended (its stream ended, or
 * another reader took it over), with the end event (`STREAM_END_EVENT`) last; the consumer cancelling releases the
 * reader and leaves the rest for the next one. A reader that never ends (a node handing its connections over) leaves
 * the response to be cut when the server goes: no end event, and the client resumes elsewhere.
 */
export function sseBody(reader: StreamReader, options: SseBodyOptions): ReadableStream<Uint8Array> {
  let lastSent = Date.now();
  let waiting = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let done = false;
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
          controller.enqueue(KEEP_ALIVE.slice());
        }, options.keepAliveMs);
        (timer as { unref?: () => void }).unref?.();
      },
      async pull(controller) {
        for (;;) {
          if (done) return;
          const bytes = reader.take(BATCH_CHARS);
          if (bytes !== undefined) {
            lastSent = Date.now();
            controller.enqueue(bytes);
            return;
          }
          if (reader.ended) {
            finish();
            controller.enqueue(END.slice());
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
