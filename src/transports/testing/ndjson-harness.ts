/** Test helper: hand-fed byte inputs, recording outputs and receivers for the NDJSON stream's tests. */
import { LINK, type FrameProblem, type Stream } from "../../jsonrpc/link.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import { ndJsonStream, type NdJsonStreamOptions } from "../ndjson.js";

export const enc = (text: string): Uint8Array => new TextEncoder().encode(text);
export const dec = (bytes: Uint8Array[]): string => new TextDecoder().decode(concat(bytes));
export const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** A byte input fed by hand. */
export function manualInput(): {
  input: ReadableStream<Uint8Array>;
  push(bytes: Uint8Array): void;
  end(): void;
  fail(e: unknown): void;
  cancelled: () => boolean;
} {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const input = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => void (cancelled = true),
  });
  return {
    input,
    push: (b) => controller.enqueue(b),
    end: () => controller.close(),
    fail: (e) => controller.error(e),
    cancelled: () => cancelled,
  };
}

/** A byte output that records each write. */
export function recordingOutput(fail?: unknown): {
  output: WritableStream<Uint8Array>;
  writes: Uint8Array[];
  closed: () => boolean;
} {
  const writes: Uint8Array[] = [];
  let closed = false;
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      if (fail !== undefined) throw fail;
      writes.push(chunk);
    },
    close: () => void (closed = true),
  });
  return { output, writes, closed: () => closed };
}

/** Starts the stream's link, recording what it delivers. */
export function receive(stream: Stream) {
  const messages: unknown[] = [];
  const problems: FrameProblem[] = [];
  const closes: unknown[] = [];
  let onClosed!: (cause: unknown) => void;
  const closed = new Promise<unknown>((resolve) => (onClosed = resolve));
  const link = stream[LINK]!;
  link.start({
    message: (m) => messages.push(m),
    problem: (p) => problems.push(p),
    closed: (cause) => {
      closes.push(cause);
      onClosed(cause);
    },
  });
  return { link, messages, problems, closes, closed };
}

/** Reads `bytes` through an NDJSON stream, recording what its link delivers. */
export function parseBytes(bytes: Uint8Array[], options?: NdJsonStreamOptions) {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const b of bytes) c.enqueue(b);
      c.close();
    },
  });
  return receive(ndJsonStream(recordingOutput().output, input, options));
}

export const note = (i: number, text = "x"): AnyMessage => ({ jsonrpc: "2.0", method: "note", params: { i, text } });
