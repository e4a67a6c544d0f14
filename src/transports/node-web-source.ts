/**
 * A `ByteSource` over a web stream that `Readable.toWeb` made, reading its Node stream directly (see
 * `node-web-origins.ts`): chunks come from the Node stream's `data` events as Node read them (no copy, no promise per
 * chunk), pausing pauses the Node stream. The web stream is still locked by a reader, and its end and errors still
 * end the source, so these are what the web path reports: the adapter closes it after the Node stream's last `data`
 * event, or errors it with the same error (an `AbortError` for a premature close). Cancelling cancels it as before,
 * which destroys the Node stream.
 */
import type { ByteSource, ByteSourceHandlers } from "./bytes.js";
import type { NodeReadableLike } from "./node-web-origins.js";

function ignore(): void {}

const encoder = new TextEncoder();

export function nodeWebByteSource(input: ReadableStream<Uint8Array>, node: NodeReadableLike): ByteSource {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let handlers: ByteSourceHandlers | undefined;
  /** No handler is called any more (ended, failed, or cancelled). */
  let done = false;
  let cancelled = false;
  let paused = false;

  const stop = (): void => {
    done = true;
    node.off("data", onData);
  };

  const deliver = (bytes: Uint8Array): void => {
    if (bytes.length === 0) return;
    try {
      handlers!.chunk(bytes);
    } catch (error) {
      stop();
      handlers!.error(error);
    }
  };

  function onData(chunk: Uint8Array | string): void {
    if (done) return;
    deliver(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    // A pull of the web stream may have resumed the Node stream behind our back: paused stays paused.
    if (paused && !done) node.pause();
  }

  const watch = (r: ReadableStreamDefaultReader<Uint8Array>): void => {
    r.read().then(
      ({ value, done: ended }) => {
        if (done) return;
        if (ended) {
          stop();
          handlers!.end();
          return;
        }
        deliver(value);
        if (!done) watch(r);
      },
      (error: unknown) => {
        if (done) return;
        stop();
        handlers!.error(error);
      },
    );
  };

  return {
    start(h) {
      handlers = h;
      reader = input.getReader();
      node.on("data", onData);
      // The pending read asks the adapter to pull once (it resumes the Node stream) and settles at the end.
      watch(reader);
      if (paused) node.pause();
    },
    pause() {
      paused = true;
      if (!done) node.pause();
    },
    resume() {
      paused = false;
      if (!done) node.resume();
    },
    cancel() {
      if (cancelled) return;
      cancelled = true;
      stop();
      const r = reader;
      if (r) r.cancel().then(() => r.releaseLock(), ignore);
      else input.cancel().catch(ignore);
    },
  };
}
