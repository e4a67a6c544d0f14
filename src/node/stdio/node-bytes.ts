/**
 * Node stream adapters for the newline-delimited JSON link: `ByteSource`/`ByteSink` straight over Node
 * `Readable`/`Writable` (no web-stream hop on the hot path), and `nodeNdJsonStream` built on them.
 */
import type { Readable, Writable } from "node:stream";
import type { Stream } from "../../jsonrpc/link.js";
import type { ByteSink, ByteSource } from "../../transports/bytes.js";
import { streamFromLink } from "../../transports/link-streams.js";
import type { NdJsonStreamOptions } from "../../transports/ndjson.js";
import { NdJsonLink } from "../../transports/ndjson-link.js";

function ignore(): void {}

/** What to do with a Node input when the link stops reading it. */
export type ReleaseInput = "unref" | "destroy";

/** Options of `nodeByteSource`. */
export interface NodeByteSourceOptions {
  /** What happens to the input when the link stops reading: `destroy` (the default) or `unref` (our own stdin). */
  release?: ReleaseInput;
  /** Other objects whose `error` event ends the input (a `ChildProcess` that failed to spawn). */
  errorEmitters?: NodeJS.EventEmitter[];
  /** Called at the end of input: resolves with an error that explains it (e.g. the process died), or nothing. */
  explainEnd?: () => Promise<unknown>;
}

/** Options of `nodeByteSink`. */
export interface NodeByteSinkOptions {
  /** Whether `close()` ends the output (the peer sees EOF). Default true; false for `process.stdout`. */
  end?: boolean;
}

/**
 * A `ByteSource` over a Node `Readable`. On cancel the listeners go, the stream pauses, and it is either unref'd
 * (`release: "unref"`, our own stdin: it no longer keeps the process alive, yet stays usable) or destroyed.
 * An `error` listener stays attached for good, so a late error never becomes an uncaught exception.
 * (The positional form `nodeByteSource(input, release, errorEmitters, explainEnd)` still works.)
 */
export function nodeByteSource(input: Readable, options?: NodeByteSourceOptions): ByteSource;
/** @deprecated Pass the options as an object: `nodeByteSource(input, { release, errorEmitters, explainEnd })`. */
export function nodeByteSource(
  input: Readable,
  release: ReleaseInput,
  errorEmitters?: NodeJS.EventEmitter[],
  explainEnd?: () => Promise<unknown>,
): ByteSource;
export function nodeByteSource(
  input: Readable,
  optionsOrRelease: NodeByteSourceOptions | ReleaseInput = {},
  positionalEmitters?: NodeJS.EventEmitter[],
  positionalExplainEnd?: () => Promise<unknown>,
): ByteSource {
  const options: NodeByteSourceOptions =
    typeof optionsOrRelease === "string"
      ? { release: optionsOrRelease, errorEmitters: positionalEmitters, explainEnd: positionalExplainEnd }
      : optionsOrRelease;
  const release = options.release ?? "destroy";
  const errorEmitters = options.errorEmitters ?? [];
  const explainEnd = options.explainEnd;
  let done = false;
  let released = false;
  let detach = ignore;
  input.on("error", ignore);
  return {
    start(handlers) {
      const finish = (cause?: unknown): void => {
        if (done) return;
        done = true;
        detach();
        if (cause === undefined) handlers.end();
        else handlers.error(cause);
      };
      const onData = (chunk: Uint8Array | string): void => {
        if (done) return;
        try {
          handlers.chunk(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
        } catch (error) {
          finish(error);
        }
      };
      const onEnd = (): void => {
        if (explainEnd === undefined || done) return finish();
        // Ask why the input ended (a child's exit code or signal) so the connection error can say it.
        explainEnd().then(
          (cause) => finish(cause ?? undefined),
          () => finish(),
        );
      };
      const onError = (error: unknown): void => finish(error ?? new Error("input stream failed"));
      input.on("data", onData);
      input.on("end", onEnd);
      input.on("close", onEnd);
      input.on("error", onError);
      for (const emitter of errorEmitters) emitter.on("error", onError);
      detach = () => {
        detach = ignore;
        input.off("data", onData);
        input.off("end", onEnd);
        input.off("close", onEnd);
        input.off("error", onError);
        for (const emitter of errorEmitters) emitter.off("error", onError);
        for (const emitter of errorEmitters) emitter.on("error", ignore);
      };
    },
    pause() {
      if (!done) input.pause();
    },
    resume() {
      if (!done) input.resume();
    },
    cancel() {
      done = true;
      detach();
      if (released) return;
      released = true;
      input.pause();
      if (release === "destroy") input.destroy();
      else (input as { unref?: () => void }).unref?.();
    },
  };
}

/**
 * A `ByteSink` over a Node `Writable`: text is written as UTF-8 by Node itself (no TextEncoder copy), bytes as they
 * are, and each write settles with its callback. With `end` (the default), `close()` ends the stream (the peer sees
 * EOF); with `end: false` it only waits for what was written (process.stdout cannot be closed). An `error` listener is
 * attached for good: EPIPE when the peer is gone reaches the link through the write callback, never as an uncaught
 * error. (The positional form `nodeByteSink(output, end)` still works.)
 */
export function nodeByteSink(output: Writable, options?: NodeByteSinkOptions): ByteSink;
/** @deprecated Pass the option as an object: `nodeByteSink(output, { end })`. */
export function nodeByteSink(output: Writable, end: boolean): ByteSink;
export function nodeByteSink(output: Writable, options: NodeByteSinkOptions | boolean = {}): ByteSink {
  const end = typeof options === "boolean" ? options : (options.end ?? true);
  output.on("error", ignore);
  return {
    write(data) {
      return new Promise<void>((resolve, reject) => {
        const done = (error: Error | null | undefined): void => (error ? reject(error) : resolve());
        if (typeof data === "string") output.write(data, "utf8", done);
        else output.write(data, done);
      });
    },
    close() {
      if (!end || output.writableEnded || output.destroyed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        output.end(() => resolve());
        output.once("close", () => resolve());
      });
    },
  };
}

/** Options of the Node ndjson streams: those of `ndJsonStream`. */
export type NodeNdJsonOptions = NdJsonStreamOptions;

/**
 * Newline-delimited JSON over a Node `Readable` and `Writable` (a socket, a child's pipes, stdio), with the
 * same contract as `ndJsonStream`. `endOutput`: close() ends `output`; `releaseInput`: see `nodeByteSource`.
 */
export function nodeNdJsonStream(
  input: Readable,
  output: Writable,
  options: NodeNdJsonOptions & {
    endOutput?: boolean;
    releaseInput?: ReleaseInput;
    errorEmitters?: NodeJS.EventEmitter[];
    /** Called at the end of input: resolves with an error that explains it (e.g. the process died), or nothing. */
    explainEnd?: () => Promise<unknown>;
  } = {},
): Stream {
  const source = nodeByteSource(input, {
    release: options.releaseInput ?? "destroy",
    errorEmitters: options.errorEmitters,
    explainEnd: options.explainEnd,
  });
  const link = new NdJsonLink(source, nodeByteSink(output, { end: options.endOutput ?? true }), options);
  return streamFromLink(link, options);
}
