/**
 * The web-stream face of an acpkit link: `{ readable, writable, [LINK] }`.
 *
 * Code written for `@agentclientprotocol/sdk` reads `readable` and writes `writable`; the acpkit engine uses
 * `[LINK]` and never touches the web streams, which are only created on first access. Exactly one consumer
 * may read: starting the link after `readable` was taken, or taking `readable` after the link started,
 * throws an error that says so.
 */
import { LINK, type FrameProblem, type MessageLink, type Stream } from "../jsonrpc/link.js";
import type { AnyMessage } from "../jsonrpc/messages.js";
import { RequestError } from "../jsonrpc/request-error.js";

/** Optional controls an acpkit link offers its web-stream face (flow control and half-closing). */
export interface LinkControl {
  /** Stops delivering incoming messages for now (the readable's queue is full). */
  pauseInput(): void;
  /** Resumes delivery after `pauseInput`. */
  resumeInput(): void;
  /** Stops reading for good (the readable was cancelled); the output stays usable. */
  stopInput(): void;
  /** Flushes and closes the output (the writable was closed); reading goes on. */
  closeOutput(): Promise<void>;
}

/** Options of the web-stream face. */
export interface LinkStreamOptions {
  /**
   * Called for each frame that did not become a message, when reading through `readable` (through the link,
   * the engine gets these instead). Without an engine to answer, the readable itself answers like the
   * official SDK: a frame that looks like JSON but does not parse gets -32700, a JSON value that is not an
   * object or array gets -32600 (both with `id: null`); oversized frames are skipped.
   */
  onProblem?: (problem: FrameProblem) => void;
  /** Messages the readable queues before input is paused. Default 64. */
  readableHighWaterMark?: number;
}

function errorReply(error: RequestError): AnyMessage {
  return { jsonrpc: "2.0", id: null, error: error.toErrorResponse() };
}

function makeReadable(
  link: MessageLink & Partial<LinkControl>,
  options: LinkStreamOptions,
): ReadableStream<AnyMessage> {
  const reply = (message: AnyMessage): void => {
    try {
      link.send(message);
    } catch {
      // An answer we cannot send (output gone) is not worth failing the reader for.
    }
  };
  return new ReadableStream<AnyMessage>(
    {
      start(controller) {
        link.start({
          message(value) {
            if (typeof value !== "object" || value === null) {
              reply(errorReply(RequestError.invalidRequest(value)));
              return;
            }
            controller.enqueue(value as AnyMessage);
            if ((controller.desiredSize ?? 1) <= 0) link.pauseInput?.();
          },
          problem(problem) {
            options.onProblem?.(problem);
            if (problem.kind === "parse" && problem.looksLikeJson) reply(errorReply(RequestError.parseError()));
            // Without an engine, whoever reads waits for these ids: answer them, as the official transports do.
            if (problem.kind === "lost") {
              for (const id of problem.ids)
                controller.enqueue({
                  jsonrpc: "2.0",
                  id,
                  error: RequestError.internalError(
                    { lost: true },
                    `The response was lost: ${problem.detail}`,
                  ).toErrorResponse(),
                });
            }
          },
          closed(cause) {
            try {
              if (cause === undefined) controller.close();
              else controller.error(cause);
            } catch {
              // Already cancelled by its reader.
            }
          },
        });
      },
      pull() {
        link.resumeInput?.();
      },
      cancel() {
        if (link.stopInput) link.stopInput();
        else void link.close();
      },
    },
    { highWaterMark: options.readableHighWaterMark ?? 64 },
  );
}

function makeWritable(link: MessageLink & Partial<LinkControl>): WritableStream<AnyMessage> {
  return new WritableStream<AnyMessage>({
    write(message) {
      link.send(message);
      return link.drain();
    },
    close() {
      return link.closeOutput ? link.closeOutput() : link.close();
    },
    abort() {
      return link.close();
    },
  });
}

/**
 * Wraps a link as a `Stream`: `readable` and `writable` are created lazily on first access, `[LINK]` is the
 * link itself behind a guard that enforces a single reader (and passes `pauseInput`, `resumeInput` and
 * `pendingOutput` through).
 */
export function streamFromLink(link: MessageLink & Partial<LinkControl>, options: LinkStreamOptions = {}): Stream {
  let reader: "link" | "readable" | undefined;
  const claim = (by: "link" | "readable"): void => {
    if (reader !== undefined && reader !== by) {
      throw new Error(
        by === "link"
          ? "This stream is already being read through stream.readable, so its acpkit link cannot start. " +
              "Give each stream to one consumer only: either read stream.readable yourself or hand it to a connection."
          : "This stream is already being read by an acpkit connection (through its link), so stream.readable " +
              "cannot be used as well. Give each stream to one consumer only.",
      );
    }
    reader = by;
  };
  // Flow control passes through the guard, so whoever holds `[LINK]` (a reconnecting link, a bridge) can pause the
  // input and see the queued output of the link underneath.
  const flow = link as Partial<LinkControl> & { readonly pendingOutput?: number };
  const guarded: MessageLink & Pick<LinkControl, "pauseInput" | "resumeInput"> & { readonly pendingOutput: number } = {
    start(receiver) {
      claim("link");
      link.start(receiver);
    },
    send: (message, rawId) => link.send(message, rawId),
    drain: () => link.drain(),
    close: () => link.close(),
    get maxMessageBytes() {
      return link.maxMessageBytes;
    },
    pauseInput: () => flow.pauseInput?.(),
    resumeInput: () => flow.resumeInput?.(),
    get pendingOutput() {
      return flow.pendingOutput ?? 0;
    },
  };
  let readable: ReadableStream<AnyMessage> | undefined;
  let writable: WritableStream<AnyMessage> | undefined;
  return {
    [LINK]: guarded,
    get readable(): ReadableStream<AnyMessage> {
      if (readable === undefined) {
        claim("readable");
        readable = makeReadable(link, options);
      }
      return readable;
    },
    get writable(): WritableStream<AnyMessage> {
      writable ??= makeWritable(link);
      return writable;
    },
  };
}
