/**
 * Byte endpoints under the newline-delimited JSON link: a source of chunks and a sink of text. Web streams
 * are adapted here (those made by `Readable.toWeb`/`Writable.toWeb` through their Node streams: `node-web-origins.ts`);
 * `src/node/` adapts Node streams directly (no web-stream hop on the hot path).
 */

import { nodeWritableOf, takeNodeReadable } from "./node-web-origins.js";
import { nodeWebByteSource } from "./node-web-source.js";
import { afterThisTurn } from "./next-turn.js";

/** What a byte source reports to, in order: chunks, then exactly one of `end` or `error`. */
export interface ByteSourceHandlers {
  chunk(bytes: Uint8Array): void;
  end(): void;
  error(cause: unknown): void;
}

/** Incoming bytes. */
export interface ByteSource {
  /** Starts reading. Called once. A handler that throws ends the source with that error. */
  start(handlers: ByteSourceHandlers): void;
  /** Stops delivering chunks soon (flow control). Chunks already read may still arrive. */
  pause(): void;
  /** Undoes `pause`. */
  resume(): void;
  /** Stops reading and releases the input. No handler is called afterwards. Idempotent. */
  cancel(): void;
}

/** Outgoing bytes. */
export interface ByteSink {
  /**
   * Writes `data`: a string as UTF-8, bytes as they are (the sink may keep them: the caller never reuses them).
   * Settles when the output accepted it; rejects when the output failed.
   */
  write(data: string | Uint8Array): Promise<void>;
  /** Closes the output after the last write. Never rejects. */
  close(): Promise<void>;
  /** Optional: called when every write so far has settled and nothing more is queued (the output is idle). */
  idle?(): void;
}

function ignore(): void {}

/**
 * A `ByteSource` over a web `ReadableStream<Uint8Array>`. The reader is taken on `start`; when `Readable.toWeb` made
 * the stream (and it is untouched), its Node stream is read directly (`node-web-source.ts`).
 */
export function webByteSource(input: ReadableStream<Uint8Array>): ByteSource {
  let chosen: ByteSource | undefined;
  let paused = false;
  return {
    start(handlers) {
      const node = takeNodeReadable(input);
      chosen = node === undefined ? pumpedWebByteSource(input) : nodeWebByteSource(input, node);
      if (paused) chosen.pause();
      chosen.start(handlers);
    },
    pause() {
      paused = true;
      chosen?.pause();
    },
    resume() {
      paused = false;
      chosen?.resume();
    },
    cancel() {
      chosen ??= pumpedWebByteSource(input);
      chosen.cancel();
    },
  };
}

/** A `ByteSource` reading a web `ReadableStream<Uint8Array>` with a reader, one chunk per `read()`. */
function pumpedWebByteSource(input: ReadableStream<Uint8Array>): ByteSource {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;
  let paused = false;
  let wake: (() => void) | undefined;

  async function pump(handlers: ByteSourceHandlers, r: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      for (;;) {
        if (paused) await new Promise<void>((resolve) => (wake = resolve));
        if (cancelled) return;
        const { value, done } = await r.read();
        if (cancelled) return;
        if (done) break;
        if (value.length > 0) handlers.chunk(value);
      }
    } catch (error) {
      if (!cancelled) handlers.error(error);
      return;
    }
    handlers.end();
  }

  return {
    start(handlers) {
      reader = input.getReader();
      void pump(handlers, reader);
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      const w = wake;
      wake = undefined;
      w?.();
    },
    cancel() {
      if (cancelled) return;
      cancelled = true;
      const r = reader;
      // Cancelled, then unlocked: the input's owner can see it is over (and, after an end of input, reuse it).
      if (r) r.cancel().then(() => r.releaseLock(), ignore);
      else input.cancel().catch(ignore);
      this.resume();
    },
  };
}

/** Options of `webByteSink`. */
export interface WebByteSinkOptions {
  /**
   * Close the output on `close()` (default true). `ndJsonStream` passes false: the output belongs to its caller, who
   * may close it (ending an agent's stdin) or keep writing to it, as with the official SDK.
   */
  closeOutput?: boolean;
}

/**
 * A `ByteSink` over a web `WritableStream<Uint8Array>`: encodes each batch once with `TextEncoder`. The output is
 * locked only while writes are in flight: the writer taken for a burst of batches is released as soon as the output
 * is idle (every write settled, nothing queued), so its owner can close it or write to it between bursts, as with
 * the official SDK (which locks it per write; holding it through a burst keeps a streaming sender fast).
 *
 * A write settles on the turn of the event loop after the stream accepted it, not in the same turn: a web stream
 * accepts a write within a few microtasks, and a sender that awaits each message runs on microtasks too, so a write
 * settled at once would let the frame writer write every message or two alone (one system call each under
 * `Writable.toWeb`). Settled a turn later, the frames sent meanwhile go out together, as over a Node stream.
 */
export function webByteSink(output: WritableStream<Uint8Array>, options: WebByteSinkOptions = {}): ByteSink {
  const encoder = new TextEncoder();
  const closeOutput = options.closeOutput ?? true;
  const node = nodeWritableOf(output);
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let last: Promise<void> = Promise.resolve();
  const release = (): void => {
    if (writer === undefined) return;
    writer.releaseLock();
    writer = undefined;
  };
  return {
    write(data) {
      writer ??= output.getWriter();
      // Made by `Writable.toWeb`, with nothing of its own queued (a full desired size: not closed, not errored, no
      // write of its owner pending): written to the Node stream directly, settled by Node's callback, as over a Node
      // stream; otherwise through the web stream, which orders and refuses writes as it always did.
      if (
        node !== undefined &&
        writer.desiredSize === node.writableHighWaterMark &&
        !node.destroyed &&
        !node.writableEnded
      ) {
        last = new Promise<void>((resolve, reject) => {
          const settle = (error?: Error | null): void => (error ? reject(error) : resolve());
          if (typeof data === "string") node.write(data, "utf8", settle);
          else node.write(data, settle);
        });
        return last;
      }
      last = writer.write(typeof data === "string" ? encoder.encode(data) : data);
      return last.then(afterThisTurn);
    },
    idle: release,
    async close() {
      await last.catch(ignore);
      release();
      if (!closeOutput) return;
      try {
        await output.close();
      } catch {
        // Already closed or errored, or locked by its owner: nothing more to flush.
      }
    },
  };
}
