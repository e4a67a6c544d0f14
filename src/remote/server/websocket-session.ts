/**
 * The WebSocket profile: one connection per socket, text frames carrying one JSON-RPC message each, binary frames
 * ignored, `initialize` first. The connection ends when the socket closes (and its agent is stopped).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (WebSocket Request Flow)
 */
import { isRecord } from "../../jsonrpc/messages.js";
import { errorAnswerText, readClientMessage } from "./client-message.js";
import { errorText, InitializeFailure, initializeFailedText } from "./errors.js";
import { isInitializeRequest, kindOf } from "./routing.js";
import type { ServerContext } from "./server-context.js";
import type { ServerConnection } from "./server-connection.js";
import { onSocketEvent } from "../websocket-like.js";
import { textOfMessage, type ServerWebSocket } from "./server-websocket.js";
import { WebSocketOutbound } from "./websocket-outbound.js";

/** One accepted WebSocket and the connection it carries. */
export class WebSocketSession {
  readonly #detach: (() => void)[] = [];
  #state: "awaiting-initialize" | "running" | "closed" = "awaiting-initialize";
  #paused = false;
  #resolveClosed!: () => void;
  /** Resolves once the socket closed and the connection ended. */
  readonly closed = new Promise<void>((resolve) => (this.#resolveClosed = resolve));

  constructor(
    private readonly context: ServerContext,
    readonly connection: ServerConnection,
    private readonly socket: ServerWebSocket,
  ) {}

  start(): void {
    // A socket that never says initialize does not hold a connection slot forever.
    const deadline = setTimeout(() => {
      if (this.#state !== "awaiting-initialize") return;
      this.context.logger.warn("closing a WebSocket that sent no initialize in time", {
        connectionId: this.connection.id,
      });
      this.#closeSocket(1008, "no initialize within initializeTimeoutMs");
      void this.connection.end({ reason: "protocol error", error: new Error("no initialize in time") });
    }, this.context.limits.initializeTimeoutMs);
    this.#detach.push(() => clearTimeout(deadline));
    this.#detach.push(onSocketEvent(this.socket, "message", (...args) => this.#onFrame(args)));
    this.#detach.push(onSocketEvent(this.socket, "close", () => this.#onSocketGone("socket closed")));
    this.#detach.push(onSocketEvent(this.socket, "error", () => this.#onSocketGone("socket error")));
    // A connection that ends before its output exists (never initialized) closes the socket itself.
    void this.connection.done.then(() => {
      if (this.#state === "awaiting-initialize")
        this.#closeSocket(1011, this.connection.ended?.reason ?? "connection ended");
      this.#onSocketGone("connection ended");
    });
  }

  /** Ends the connection (closing the socket with `code`) and waits for its agent. */
  async close(code = 1001, reason = "the server is shutting down"): Promise<void> {
    if (this.#state !== "closed") {
      if (this.#state === "awaiting-initialize") this.#closeSocket(code, reason);
      void this.connection.end(code === 1001 ? { reason: "server closing" } : { reason, error: new Error(reason) });
    }
    await this.connection.done;
  }

  #closeSocket(code: number, reason: string): void {
    try {
      this.socket.close(code, reason);
    } catch {
      // Already closing.
    }
  }

  #onFrame(args: readonly unknown[]): void {
    if (this.#state === "closed") return;
    const text = textOfMessage(args);
    if (text === undefined) {
      this.context.logger.debug("ignoring a binary WebSocket frame (ACP messages are text frames)", {
        connectionId: this.connection.id,
      });
      return;
    }
    const read = readClientMessage(text, "frame");
    if (!read.ok) {
      this.#reply(errorAnswerText(null, undefined, { code: read.code, message: read.message }));
      // An initialize with an id that cannot be answered ends the socket at once, as any other first message that
      // is not an initialize does (below); bad JSON is only answered, as over stdio.
      if (this.#state === "awaiting-initialize" && read.reason === "invalid-id") this.#refuseFirstMessage();
      return;
    }
    if (this.#state === "awaiting-initialize") return this.#initialize(read.message, text.length, read.rawId);
    this.#forward(read.message, text.length, read.rawId);
  }

  #refuseFirstMessage(): void {
    this.context.logger.warn("closing a WebSocket whose first message is not initialize", {
      connectionId: this.connection.id,
    });
    this.#closeSocket(1002, "the first message must be an initialize request with an id");
    void this.connection.end({
      reason: "protocol error",
      error: new Error("the first message must be an initialize request with an id"),
    });
  }

  #initialize(message: Record<string, unknown>, chars: number, rawId: string | undefined): void {
    if (!isInitializeRequest(message) || message.id === null) return this.#refuseFirstMessage();
    this.#state = "running";
    try {
      this.connection.start(new WebSocketOutbound(this.socket, this.context.limits, this.connection.limitExceeded));
    } catch (error) {
      this.#failInitialize(message, rawId, error);
      return;
    }
    this.connection.initialize(message, chars, { passThrough: true, ...(rawId === undefined ? {} : { rawId }) }).then(
      (answer) => {
        if ("error" in answer.message) void this.connection.end({ reason: "initialize refused" });
        else this.context.register(this.connection);
      },
      (error: unknown) => this.#failInitialize(message, rawId, error),
    );
  }

  #failInitialize(message: Record<string, unknown>, rawId: string | undefined, error: unknown): void {
    const failure = error instanceof InitializeFailure ? error : new InitializeFailure(500, errorText(error));
    this.context.logger.warn("a WebSocket connection failed to initialize", {
      connectionId: this.connection.id,
      reason: failure.message,
    });
    this.#reply(
      errorAnswerText(message.id, rawId, {
        code: -32603,
        message: initializeFailedText(failure),
        data: failure.message,
      }),
    );
    void this.connection.end({ reason: "initialize failed", error: failure });
  }

  #forward(message: Record<string, unknown>, chars: number, rawId: string | undefined): void {
    const connection = this.connection;
    if (connection.ended) return;
    const kind = kindOf(message);
    if (kind === "request" && isInitializeRequest(message)) {
      this.#reply(
        errorAnswerText(message.id, rawId, {
          code: -32600,
          message: "Invalid Request: this connection is already initialized",
        }),
      );
      return;
    }
    const sessionId = sessionIdOf(message);
    const { maxIdLength } = this.context.limits;
    if (sessionId !== undefined && sessionId.length > maxIdLength) {
      void connection.end({
        reason: "limit",
        error: new Error(`the session id is longer than maxIdLength (${maxIdLength})`),
      });
      return;
    }
    const refusal =
      kind === "response"
        ? connection.forwardResponse(message, chars, null, rawId)
        : connection.forwardCall(message, chars, sessionId, rawId);
    if (refusal) {
      void connection.end({ reason: "limit", error: new Error(refusal.message) });
      return;
    }
    this.#applyBackpressure();
  }

  /** Stops reading the socket while the agent is not taking messages or the client is behind on its output. */
  #applyBackpressure(): void {
    const { maxBufferedBytes, maxMessageBytes } = this.context.limits;
    const connection = this.connection;
    const inbox = connection.agentLink.inboxChars;
    const behind = connection.output?.backlogged ?? false;
    if (inbox <= maxBufferedBytes && !behind) return;
    if (typeof this.socket.pause !== "function") {
      if (inbox > maxBufferedBytes + maxMessageBytes) {
        void connection.end({
          reason: "limit",
          error: new Error(`the client sent more than maxBufferedBytes (${maxBufferedBytes}) the agent has not taken`),
        });
      }
      return;
    }
    if (this.#paused) return;
    this.#paused = true;
    this.socket.pause();
    void this.#resumeWhenRoom();
  }

  async #resumeWhenRoom(): Promise<void> {
    const connection = this.connection;
    while (this.#state !== "closed" && !connection.ended) {
      await connection.whenRoom();
      if (connection.agentLink.inboxChars <= this.context.limits.maxBufferedBytes) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.#paused = false;
    if (this.#state !== "closed") this.socket.resume?.();
  }

  #reply(text: string): void {
    try {
      this.socket.send(text);
    } catch {
      // The socket is closing.
    }
  }

  #onSocketGone(reason: string): void {
    if (this.#state === "closed") return;
    this.#state = "closed";
    for (const detach of this.#detach.splice(0)) detach();
    void this.connection.end({ reason }).then(this.#resolveClosed);
  }
}

/** The session a message belongs to: its params' `sessionId`. */
function sessionIdOf(message: Record<string, unknown>): string | undefined {
  const params = message.params;
  return isRecord(params) && typeof params.sessionId === "string" ? params.sessionId : undefined;
}
