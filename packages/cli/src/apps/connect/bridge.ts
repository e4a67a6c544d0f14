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
 * - The end of stdin closes the remote connection (DELETE on Streamable HTTP), waiting `closeTimeoutMs` at most,
 *   and exits 0 (1 when the remote never answered anything it was sent). The remote agent going away exits 1 with
 *   a message on stderr, unless `reconnect` is on. Stdin is read from the start: its end also ends a bridge still
 *   connecting.
 * - Nothing waits forever on a server that accepts connections and says nothing: the WebSocket must open within
 *   `connectTimeoutMs`, the first answer must come within `connectTimeoutMs` of the first frame sent, each HTTP
 *   request must be answered (status and headers) within `requestTimeoutMs`; each breach exits 1 with the reason.
 *   Over WebSocket, a server that goes silent later (stopped, frozen, cut off without a FIN) is found by a ping every
 *   `pingIntervalMs`: one that answers neither it nor anything else before the next ping ends the bridge (exit 1).
 *   Over Streamable HTTP, an event stream whose server sent keep-alive comments and then nothing for three
 *   `pingIntervalMs` is broken (`silenceTimeoutMs`): resumed, and when the server does not answer that GET either
 *   (`requestTimeoutMs`), the bridge ends (exit 1).
 *   "connected" is said when the remote first answered, not before; a refused `initialize` is said on stderr too,
 *   with what to do about a 401 (the editor may not show the error it gets).
 * - What reaches stderr from the remote (its error text, a frame that is not JSON) carries no terminal control
 *   sequences.
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
import type { ReconnectOptions } from "@acpkit/sdk/remote";
import { connectRemote } from "@acpkit/sdk/node";
import type { RemoteProfile, RemoteStream } from "@acpkit/sdk/remote";
import { LineSplitter } from "@acpkit/sdk/wire";
import { DEFAULT_MAX_MESSAGE_BYTES } from "@acpkit/sdk";
import { sanitizeTerminalText } from "@acpkit/sdk/client-toolkit";
import { withTokenHint } from "../shared/token-hint.js";
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
  /** How long the remote has to accept the connection, and to answer the first frame. Default 30000 ms. */
  connectTimeoutMs?: number;
  /** How long each HTTP request has for its answer (status and headers). Default 60000 ms. */
  requestTimeoutMs?: number;
  /**
   * Over WebSocket, a ping this often; a server that answered neither it nor anything else by the next one is gone
   * (exit 1). Default 15000 ms; 0 turns it off.
   */
  pingIntervalMs?: number;
  /** How long closing the remote may take once stdin ended. Default 5000 ms. */
  closeTimeoutMs?: number;
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
  // Whatever the remote said is quoted without terminal control sequences.
  const note = (text: string) => void io.stderr.write(`acp connect: ${sanitizeTerminalText(text)}\n`);
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 5000;
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

  // The end: once, with its code.
  let finish!: (code: number) => void;
  const ended = new Promise<number>((resolve) => (finish = resolve));
  // Stdin is read from the start, so its end is heard while connecting too; lines wait for the link (up to the hold
  // mark: then stdin is paused until connected).
  const early: string[] = [];
  let earlyChars = 0;
  let pausedEarly = false;
  // Set once connected: what a line and the end of stdin do then.
  const wired: { forward?: (line: string) => void; onStdinEnd?: () => void } = {};
  const keepEarly = (line: string) => {
    early.push(line);
    earlyChars += line.length;
    if (earlyChars >= STDIN_HOLD_MARK && !pausedEarly) {
      pausedEarly = true;
      io.stdin.pause();
    }
  };
  let stdinEnded = false;
  const splitter = new LineSplitter(maxBytes, {
    line: (line) => (wired.forward ? wired.forward(line) : keepEarly(line)),
    tooLarge: (bytes) =>
      note(`a line of ${bytes} bytes from the editor is over the ${maxBytes}-byte limit and was not sent`),
  });
  const onData = (chunk: Buffer) => splitter.push(chunk);
  io.stdin.on("data", onData);
  io.stdin.once("end", () => {
    splitter.end();
    stdinEnded = true;
    if (wired.onStdinEnd) wired.onStdinEnd();
    else finish(0); // still connecting: nothing was sent, nothing to close
  });
  const stopReading = () => {
    io.stdin.off("data", onData);
    // Let the process end: a paused, destroyed stdin holds no handle open.
    io.stdin.pause();
    (io.stdin as { destroy?: () => void }).destroy?.();
  };

  let stream: RemoteStream;
  let link: BridgeLink;
  /** Sends one line from the editor: as is on a plain link, re-serialized on a reconnecting one (it may queue it). */
  let sendLine: (line: string, value: AnyMessage) => void;
  // The first answer from the remote: "connected" is said then, and the connect bound ends. Only a result or a
  // message of the agent's own proves the remote answered: an error may be the transport's, made here.
  let answered = false;
  let onFirstAnswer: () => void = () => {};
  // The editor's first initialize (its id as JSON), while its answer is awaited: a refusal of it is said on stderr
  // too, with what to do about a 401 (an editor may not show the error it gets).
  let initializeId: string | undefined;
  let onInitializeRefused: (text: string) => void = () => {};
  const heard = (value: unknown) => {
    if (answered || !isRecord(value)) return;
    if ("error" in value && initializeId !== undefined && JSON.stringify(value.id) === initializeId) {
      initializeId = undefined;
      const error = isRecord(value.error) ? value.error : {};
      onInitializeRefused(typeof error.message === "string" ? error.message : JSON.stringify(value.error));
      return;
    }
    if (!("result" in value || "method" in value)) return;
    answered = true;
    onFirstAnswer();
  };
  const common = {
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    openTimeoutMs: connectTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    pingIntervalMs: options.pingIntervalMs ?? 15_000,
    // Streamable HTTP: an event stream silent for three ping intervals, once its server showed it sends keep-alives.
    ...((options.pingIntervalMs ?? 15_000) > 0 ? { silenceTimeoutMs: 3 * (options.pingIntervalMs ?? 15_000) } : {}),
    maxMessageBytes: maxBytes,
  };
  const connecting = (async () => {
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
      return {
        stream: reconnecting as RemoteStream,
        link: reconnecting.reconnecting as BridgeLink,
        sendLine: (_line: string, value: AnyMessage) => reconnecting.reconnecting.send(value),
      };
    }
    const plain = await connectRemote(options.url, {
      ...common,
      deliverText: (text, value) => {
        heard(value);
        writeFrame(text);
      },
    });
    return {
      stream: plain,
      link: plain.link as BridgeLink,
      sendLine: (line: string, value: AnyMessage) => plain.link.sendText(line, value),
    };
  })();
  try {
    const outcome = await Promise.race([connecting, ended]);
    if (typeof outcome === "number") {
      // Stdin ended while connecting: leave now (a late connection is closed as it opens).
      void connecting.then(
        ({ link: late }) => late.close(),
        () => {},
      );
      stopReading();
      return outcome;
    }
    ({ stream, link, sendLine } = outcome);
  } catch (error) {
    note(withTokenHint((error as Error).message));
    stopReading();
    return 1;
  }
  flow.link = link;
  const profileName = stream.profile === "websocket" ? "WebSocket" : "Streamable HTTP";
  onFirstAnswer = () => {
    clearTimeout(firstAnswerTimer);
    note(`connected to ${stream.url} (${profileName})`);
  };
  onInitializeRefused = (text) =>
    note(withTokenHint(`no connection to ${stream.url} (${profileName}): initialize failed: ${text}`));

  let closing = false;
  /** Closes the remote, waiting `closeTimeoutMs` at most; false when it did not finish in time. */
  const closeBounded = async (): Promise<boolean> => {
    closing = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      link.close().then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), closeTimeoutMs))),
    ]);
    clearTimeout(timer);
    return done;
  };
  const fail = (text: string) => {
    if (closing) return;
    note(text);
    void closeBounded().then(() => finish(1));
  };
  // The connect bound goes on until the remote answers the first frame sent to it.
  let firstAnswerTimer: ReturnType<typeof setTimeout> | undefined;
  let sentAny = false;
  const armFirstAnswer = () => {
    if (sentAny) return;
    sentAny = true;
    if (answered) return;
    firstAnswerTimer = setTimeout(
      () =>
        fail(
          `${stream.url} accepted the connection but answered nothing within ${connectTimeoutMs / 1000} s ` +
            "(--connect-timeout): is it an ACP server, and is its agent starting? Giving up.",
        ),
      connectTimeoutMs,
    );
  };

  link.start({
    message: (value) => {
      heard(value);
      writeFrame(JSON.stringify(value));
    },
    problem: (problem) => {
      reportProblem(problem, note, answer);
    },
    closed: (cause) => {
      clearTimeout(firstAnswerTimer);
      if (closing) return;
      note(
        cause === undefined
          ? "the remote agent closed the connection"
          : cause instanceof Error
            ? cause.message
            : String(cause),
      );
      finish(1);
    },
  });

  let holdingStdin = false;
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
    if (!answered && initializeId === undefined && value.method === "initialize" && "id" in value)
      initializeId = JSON.stringify(value.id);
    try {
      sendLine(line, value as AnyMessage);
      armFirstAnswer();
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
  wired.forward = forward;
  for (const line of early.splice(0)) forward(line);
  if (pausedEarly && !holdingStdin) io.stdin.resume();
  wired.onStdinEnd = () => {
    clearTimeout(firstAnswerTimer);
    void closeBounded().then((done) => {
      if (!done) note(`the remote did not take the end of the connection within ${closeTimeoutMs / 1000} s; leaving`);
      if (sentAny && !answered) {
        note(`stdin ended before ${stream.url} answered anything it was sent`);
        finish(1);
      } else finish(0);
    });
  };
  if (stdinEnded) wired.onStdinEnd();
  io.stdout.on("error", () => {
    // The editor went away: nothing is left to bridge for.
    stopReading();
    void closeBounded().then(() => finish(0));
  });
  const code = await ended;
  clearTimeout(firstAnswerTimer);
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
