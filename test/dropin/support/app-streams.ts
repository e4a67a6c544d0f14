/** Test support: message streams a test drives by hand, and the unhandled rejections an operation leaves behind. */
import type * as official from "@agentclientprotocol/sdk";

/** A readable that stays open until the test ends or errors it. */
export function manualReadable<T>() {
  let controller!: ReadableStreamDefaultController<T>;
  let cancelled: unknown = "not cancelled";
  const readable = new ReadableStream<T>({
    start: (c) => void (controller = c),
    cancel: (reason) => void (cancelled = reason),
  });
  return { readable, controller, cancelled: () => cancelled };
}

/** A message stream whose input the test drives and whose output it records. */
export function messageStream(write: (message: unknown) => unknown = () => undefined) {
  const input = manualReadable<official.AnyMessage>();
  const sent: unknown[] = [];
  const stream: official.Stream = {
    readable: input.readable,
    writable: new WritableStream({
      write: async (message) => {
        sent.push(message);
        await write(message);
      },
    }),
  };
  return { stream, input, sent };
}

export const INITIALIZE: official.InitializeRequest = { protocolVersion: 1, clientCapabilities: {} };
export const closedMessage = (error: unknown) => error instanceof Error && /ACP connection closed/.test(error.message);
/** Settles after every queued microtask and a macrotask: enough for a message to go through the streams above. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** The unhandled rejections `op` leaves behind (collected until a macrotask after it). */
export async function unhandledDuring(op: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (reason: unknown) => void seen.push(reason instanceof Error ? reason.message : String(reason));
  process.on("unhandledRejection", listener);
  try {
    await op();
    await settle();
  } finally {
    process.off("unhandledRejection", listener);
  }
  return seen;
}
