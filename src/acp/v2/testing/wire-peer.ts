/**
 * A raw JSON-RPC peer over web TransformStreams, for tests that drive a protocol v2 app (acpkit's or the official
 * SDK's) message by message: `stream` goes to the app; the test sends with `send` and reads with `next`.
 */
import type { AnyMessage } from "../../../jsonrpc/index.js";

export interface WirePeer {
  /** The app's end: `{ readable, writable }` of messages. */
  readonly stream: { readable: ReadableStream<AnyMessage>; writable: WritableStream<AnyMessage> };
  /** Sends one message (anything: malformed envelopes and arrays included) to the app. */
  send(message: unknown): Promise<void>;
  /** The next message the app sent; rejects when the app closed its output first. */
  next(): Promise<Record<string, unknown>>;
  /** Sends a request and reads messages until its answer (messages read on the way are kept in `seen`). */
  call(id: unknown, method: string, params?: unknown): Promise<Record<string, unknown>>;
  /** Messages `call` read past on its way to an answer. */
  readonly seen: Record<string, unknown>[];
  /** Ends the app's input (as a client that goes away). */
  end(): Promise<void>;
  /** Resolves when the app closed its output. */
  readonly outputClosed: Promise<void>;
}

export function wirePeer(): WirePeer {
  const toApp = new TransformStream<AnyMessage, AnyMessage>();
  const fromApp = new TransformStream<AnyMessage, AnyMessage>();
  const writer = toApp.writable.getWriter();
  const reader = fromApp.readable.getReader();
  const seen: Record<string, unknown>[] = [];
  let resolveClosed!: () => void;
  const outputClosed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await reader.read();
    if (done) {
      resolveClosed();
      throw new Error("the app closed its output");
    }
    return value as Record<string, unknown>;
  };
  return {
    stream: { readable: toApp.readable, writable: fromApp.writable },
    send: (message) => writer.write(message as AnyMessage),
    next,
    seen,
    async call(id, method, params) {
      await writer.write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) } as AnyMessage);
      for (;;) {
        const message = await next();
        if (!("method" in message) && (message.id === id || message.id === null)) return message;
        seen.push(message);
      }
    },
    end: () => writer.close(),
    outputClosed,
  };
}
