/**
 * The body of an SSE response: each queued message as one `data:` event, keep-alive comments while idle.
 *
 * The body takes messages from its queue only when its consumer asks for bytes (no high-water mark), so what the
 * client has not read stays queued and counted by its connection: backpressure reaches the agent. Messages queued
 * together leave in one chunk (up to `BATCH_CHARS`), which is what makes streaming fast.
 *
 * Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { OutboundQueue, QueueReader } from "./outbound-queue.js";

/** About how many UTF-16 units of JSON one chunk carries when messages are waiting. */
const BATCH_CHARS = 64 * 1024;
/** An SSE comment: ignored by clients, keeps proxies and NATs from timing the stream out. */
const KEEP_ALIVE = ":\n\n";

/** The SSE event for one message's JSON text (which, being JSON.stringify output, has no line breaks). */
export function sseEvent(json: string): string {
  return `data: ${json}\n\n`;
}

/** Options of `sseBody`. */
export interface SseBodyOptions {
  /** Interval of keep-alive comments while nothing else is sent. */
  keepAliveMs: number;
  /** Called once when the body ends, for whatever reason (queue ended, consumer cancelled). */
  onClose(): void;
}

/**
 * A byte stream of the queue's messages as SSE events. Attach must succeed before: `queue.attach` is done here and
 * throws when another reader holds the queue. Ends cleanly when the queue ends and is empty; the consumer cancelling
 * detaches the reader and leaves the rest queued.
 */
export function sseBody(queue: OutboundQueue, options: SseBodyOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let waiting: (() => void) | undefined;
  let lastSent = Date.now();
  let timer: ReturnType<typeof setInterval> | undefined;
  let done = false;
  const reader: QueueReader = {
    wake() {
      const resolve = waiting;
      waiting = undefined;
      resolve?.();
    },
  };
  const finish = () => {
    if (done) return;
    done = true;
    if (timer !== undefined) clearInterval(timer);
    queue.detach(reader);
    reader.wake();
    options.onClose();
  };
  if (!queue.attach(reader)) throw new Error("this stream already has a reader");
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        timer = setInterval(() => {
          // Only a consumer waiting for bytes needs a keep-alive; one that is not reading is not helped by more.
          if (done || waiting === undefined || Date.now() - lastSent < options.keepAliveMs) return;
          lastSent = Date.now();
          controller.enqueue(encoder.encode(KEEP_ALIVE));
        }, options.keepAliveMs);
        (timer as { unref?: () => void }).unref?.();
      },
      async pull(controller) {
        for (;;) {
          if (done) return;
          if (!queue.isEmpty) {
            let text = "";
            for (const json of queue.take(BATCH_CHARS)) text += sseEvent(json);
            lastSent = Date.now();
            controller.enqueue(encoder.encode(text));
            return;
          }
          if (queue.ended) {
            finish();
            controller.close();
            return;
          }
          await new Promise<void>((resolve) => (waiting = resolve));
        }
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0 },
  );
}
