/**
 * `acp connect`: a stdio <-> remote bridge, so an editor that only starts stdio agents can use a remote one: it
 * runs `acp connect https://host/acp --token T` as its agent command. Newline-delimited JSON-RPC on stdin goes to
 * the remote agent (WebSocket, or Streamable HTTP when the server refuses the upgrade), and what the agent sends
 * comes out on stdout, one frame per line.
 *
 * Contracts:
 * - Frames pass unchanged both ways: each line from the editor is sent as is (it is parsed only to route it), each
 *   message from the agent is written exactly as it arrived. Stdout carries frames and nothing else.
 * - A line that is not a JSON object is not sent: the editor gets the answer a stdio agent would give (-32700 for
 *   bad JSON, -32600 for a batch or a non-object) and stderr says why. A request whose response the transport
 *   lost gets a -32603 error, so the editor never waits forever.
 * - Backpressure both ways: while stdout is full, the remote is not read; while the remote does not take what the
 *   editor sends (more than 256 KiB waiting), stdin is not read.
 * - The end of stdin closes the remote connection (DELETE on Streamable HTTP) and exits 0. The remote agent going
 *   away exits 1 with a message on stderr, unless `reconnect` is on.
 * - With `reconnect`: when the remote drops, the bridge reconnects (backoff), sends the editor's `initialize` again
 *   and reattaches its sessions (`session/resume` when advertised, else `session/load`, the replayed history held
 *   back), so the editor keeps its agent process. Requests in flight get a -32603 error at once; each step goes to
 *   stderr and each reattached session gets a notice (see reconnect-notices.ts). Frames from the agent are then
 *   re-serialized (same JSON, not byte for byte). After the last failed attempt it exits 1.
 *
 * Spec: https://agentclientprotocol.com/protocol/transports and
 * https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { sketchEnvelope } from "@acpkit/sdk/wire";
import type { FrameProblem } from "@acpkit/sdk";
import type { AnyMessage } from "@acpkit/sdk";
import { RequestError } from "@acpkit/sdk";
import type { ReconnectOptions } from "@acpkit/sdk";
import { connectRemote } from "@acpkit/sdk/node";
import type { RemoteProfile, RemoteStream } from "@acpkit/sdk";
import { LineSplitter } from "@acpkit/sdk/wire";
import { DEFAULT_MAX_MESSAGE_BYTES } from "@acpkit/sdk";
import { describeReconnectEvent, noticeFrame } from "./reconnect-notices.js";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Output waiting for the remote beyond which stdin is no longer read. */
const STDIN_HOLD_MARK = 256 * 1024;

export interface BridgeOptions {
  url: string;
  token?: string;
  headers?: Record<string, string>;
  profile?: RemoteProfile;
  /** How long the remote has to accept the connection. Default 30000 ms. */
  connectTimeoutMs?: number;
  maxMessageBytes?: number;
  /** Reconnect when the remote drops (`true` for the defaults; `onEvent` is the bridge's own). Off by default. */
  reconnect?: boolean | Omit<ReconnectOptions, "onEvent">;
}

/** What the bridge needs of the link to the remote: a plain remote link, or a reconnecting one. */
type BridgeLink = Pick<
  RemoteStream["link"],
  "start" | "send" | "drain" | "close" | "pauseInput" | "resumeInput" | "pendingOutput"
>;

/** The process streams (injectable for tests). */
export interface BridgeIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: { write(text: string): unknown };
}

/** Runs the bridge until stdin ends or the remote goes away; resolves with the exit code. */
export async function runBridge(
  options: BridgeOptions,
  io: BridgeIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const note = (text: string) => void io.stderr.write(`acp connect: ${text}\n`);
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // Flow control: while stdout is full, the link stops reading from the remote.
  const flow: { paused: boolean; link: BridgeLink | undefined } = { paused: false, link: undefined };
  const writeFrame = (text: string) => {
    if (!io.stdout.write(`${text}\n`) && !flow.paused && flow.link) {
      flow.paused = true;
      flow.link.pauseInput();
    }
  };
  io.stdout.on("drain", () => {
    if (!flow.paused) return;
    flow.paused = false;
    flow.link?.resumeInput();
  });
  const answer = (id: unknown, error: RequestError) =>
    writeFrame(JSON.stringify({ jsonrpc: "2.0", id, error: error.toErrorResponse() }));

  let stream: RemoteStream;
  let link: BridgeLink;
  /** Sends one line from the editor: as is on a plain link, re-serialized on a reconnecting one (it may queue it). */
  let sendLine: (line: string, value: AnyMessage) => void;
  const common = {
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    openTimeoutMs: options.connectTimeoutMs ?? 30_000,
    maxMessageBytes: maxBytes,
  };
  try {
    if (options.reconnect !== undefined && options.reconnect !== false) {
      // The reconnecting link must see every message (it answers its own requests, learns sessions): no deliverText.
      const onEvent: ReconnectOptions["onEvent"] = (event) => {
        const { note: text, session } = describeReconnectEvent(event);
        note(text);
        if (session !== undefined) writeFrame(noticeFrame(session.sessionId, session.text));
      };
      const reconnecting = await connectRemote(options.url, {
        ...common,
        reconnect: { ...(options.reconnect === true ? {} : options.reconnect), onEvent },
      });
      stream = reconnecting;
      link = reconnecting.reconnecting;
      sendLine = (_line, value) => reconnecting.reconnecting.send(value);
    } else {
      stream = await connectRemote(options.url, { ...common, deliverText: (text) => writeFrame(text) });
      const plain = stream.link;
      link = plain;
      sendLine = (line, value) => plain.sendText(line, value);
    }
  } catch (error) {
    note((error as Error).message);
    return 1;
  }
  flow.link = link;
  note(`connected to ${stream.url} (${stream.profile === "websocket" ? "WebSocket" : "Streamable HTTP"})`);

  let closing = false;
  const ended = new Promise<number>((resolve) => {
    link.start({
      message: (value) => writeFrame(JSON.stringify(value)),
      problem: (problem) => reportProblem(problem, note, answer),
      closed: (cause) => {
        if (closing) return resolve(0);
        note(
          cause === undefined
            ? "the remote agent closed the connection"
            : cause instanceof Error
              ? cause.message
              : String(cause),
        );
        resolve(1);
      },
    });
  });

  const forward = (line: string) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (line.trim() === "") return;
      note(`a line from the editor is not JSON and was not sent (${(error as Error).message})`);
      if (/^\s*[{[]/.test(line)) answer(null, RequestError.parseError(undefined, (error as Error).message));
      return;
    }
    if (!isRecord(value)) {
      note("a line from the editor is not a JSON-RPC object (batches are not used by ACP) and was not sent");
      answer(
        null,
        RequestError.invalidRequest(
          undefined,
          Array.isArray(value) ? "JSON-RPC batches are not supported" : "not a JSON-RPC message",
        ),
      );
      return;
    }
    try {
      sendLine(line, value as AnyMessage);
    } catch (error) {
      // Only a refusal for backlog can land here (stdin is paused well before): say so, answer a request.
      note((error as Error).message);
      if ("id" in value && "method" in value)
        answer(value.id, RequestError.internalError(undefined, (error as Error).message));
      return;
    }
    // The remote is not taking what we send: stop reading stdin until it does.
    if (link.pendingOutput >= STDIN_HOLD_MARK && !holdingStdin) {
      holdingStdin = true;
      io.stdin.pause();
      void link.drain().then(() => {
        holdingStdin = false;
        io.stdin.resume();
      });
    }
  };
  let holdingStdin = false;
  const splitter = new LineSplitter(maxBytes, {
    line: forward,
    tooLarge: (bytes) =>
      note(`a line of ${bytes} bytes from the editor is over the ${maxBytes}-byte limit and was not sent`),
  });
  const stopReading = () => {
    io.stdin.off("data", onData);
    // Let the process end: a paused, destroyed stdin holds no handle open.
    io.stdin.pause();
    (io.stdin as { destroy?: () => void }).destroy?.();
  };
  const onData = (chunk: Buffer) => splitter.push(chunk);
  io.stdin.on("data", onData);
  io.stdin.once("end", () => {
    splitter.end();
    closing = true;
    void link.close();
  });
  io.stdout.on("error", () => {
    // The editor went away: nothing is left to bridge for.
    closing = true;
    stopReading();
    void link.close();
  });
  const code = await ended;
  stopReading();
  return code;
}

function reportProblem(
  problem: FrameProblem,
  note: (text: string) => void,
  answer: (id: unknown, error: RequestError) => void,
): void {
  if (problem.kind === "parse")
    note(`the agent sent a frame that is not JSON (${problem.detail}): ${problem.preview.slice(0, 120)}`);
  else if (problem.kind === "too_large") {
    note(`a message of ${problem.bytes} bytes from the agent is over the ${problem.limit}-byte limit and was dropped`);
    const { id, kind } = problem.envelope ?? sketchEnvelope(problem.head);
    if (id !== undefined && kind !== "request" && kind !== "notification")
      answer(
        id,
        RequestError.internalError(
          { maxMessageBytes: problem.limit },
          `the response is ${problem.bytes} bytes, over the bridge's ${problem.limit}-byte limit`,
        ),
      );
  } else {
    note(`lost the responses to ${problem.ids.length} request(s): ${problem.detail}`);
    for (const id of problem.ids)
      answer(id, RequestError.internalError({ lost: true }, `The response was lost: ${problem.detail}`));
  }
}
