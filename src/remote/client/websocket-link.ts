/**
 * The WebSocket client as a `MessageLink`: one JSON-RPC message per text frame, both ways. Browser-safe: it uses
 * the platform WebSocket unless given a constructor (Node's `ws`, which also takes headers).
 *
 * Contracts (transport RFD):
 * - Messages sent before the socket is open are queued and go out, in order, once it opens.
 * - Text frames only: binary frames are ignored. A frame that is not JSON is reported as a `parse` problem, one
 *   over `maxMessageBytes` as `too_large`; the connection stays up.
 * - Credentials: `token` goes in an `Authorization: Bearer` header when the constructor takes headers (any
 *   constructor passed in `WebSocket`, e.g. `ws`), else (the platform's, in browsers) in the `acp.bearer.<base64url>`
 *   subprotocol offered beside `acp`. `tokenVia` overrides the choice. Cookies: a constructor that takes headers
 *   gets the store's `Cookie` header and the 101's `Set-Cookie`s are stored; browsers use their own jar.
 * - The server closing the socket, or the link dropping, ends the link with a `TransportFailedError` naming the
 *   close code; an upgrade the server refuses names its HTTP status where the socket reports it (`ws`).
 * - `close()` sends what is queued, then closes with 1000; it resolves when the socket has closed (or after
 *   `closeTimeoutMs`).
 * - A silent server (stopped, frozen, cut off without a FIN): with `pingIntervalMs`, where the socket can ping
 *   (`ws`), a server that answers neither a ping nor anything else for a whole interval ends the link with a
 *   `TransportFailedError` saying so (`websocket-heartbeat.ts`).
 * - Backpressure (`backpressure.ts`), counted on the socket's `bufferedAmount`: `drain()` waits above
 *   `writeHighWaterMark`, a request or notification sent while `maxBufferedBytes` are unsent throws
 *   `OutputBacklogError`, and while replies are unsent above the high-water mark the socket is paused (where it can
 *   be: `ws`; a browser's cannot).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (WebSocket upgrade)
 */
import type { LinkReceiver, MessageLink } from "../../jsonrpc/link.js";
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import type { AnyMessage } from "../../jsonrpc/messages.js";
import {
  InputGate,
  isReply,
  OutputLedger,
  refuseOverBacklog,
  resolveMaxBufferedBytes,
  type BackpressureOptions,
} from "../../transports/backpressure.js";
import { LinkLifecycle } from "../../transports/link-lifecycle.js";
import { resolveMaxMessageBytes, serializeMessage, utf8Length } from "../../transports/serialize.js";
import { MemoryAcpCookieStore, type AcpCookieStore } from "./cookie-store.js";
import type { RemoteEndpointOptions } from "./http-endpoint.js";
import { bearerSubprotocol, HEADER_CONNECTION_ID, WEBSOCKET_SUBPROTOCOL } from "../http-protocol.js";
import type { WebSocketConstructor, WebSocketLike } from "../websocket-like.js";
import { describeCloseCode, listen, refusedStatus } from "./websocket-events.js";
import { startHeartbeat, type Heartbeat } from "./websocket-heartbeat.js";

/** Options of the WebSocket link. */
export interface WebSocketLinkOptions extends RemoteEndpointOptions, BackpressureOptions {
  /** The WebSocket constructor. Default `globalThis.WebSocket`; in Node 20 pass `ws`'s (or use `@acpkit/sdk/node`). */
  WebSocket?: WebSocketConstructor;
  /** Subprotocols to offer. */
  protocols?: string[];
  /** Where `token` goes: `header` (default with a constructor passed in) or `subprotocol` (default otherwise). */
  tokenVia?: "header" | "subprotocol";
  /** Largest message accepted or sent, in UTF-8 bytes. Default 32 MiB. */
  maxMessageBytes?: number;
  /** `drain()` waits while the socket holds more than this many unsent bytes. Default 1 MiB. */
  writeHighWaterMark?: number;
  /** How long `close()` waits for the closing handshake. Default 5000 ms. */
  closeTimeoutMs?: number;
  /** How long the server has to accept the upgrade before the link fails. Default 30000 ms. */
  openTimeoutMs?: number;
  /** As `HttpLinkOptions.deliverText`: incoming messages with their exact text, for bridges. */
  deliverText?: (text: string, value: unknown) => void;
  /**
   * Where the socket can ping (`ws`; a browser's cannot): a ping this often once open, and a server that answered
   * neither it nor anything else by the next one fails the link (a stopped or vanished server, which TCP alone may
   * not notice for hours). Default: off.
   */
  pingIntervalMs?: number;
}

const PREVIEW_CHARS = 200;

/** See the file comment. */
export class WebSocketLink implements MessageLink {
  readonly url: string;
  readonly #socket: WebSocketLike;
  readonly #maxBytes: number;
  readonly #highWaterMark: number;
  readonly #maxBuffered: number;
  readonly #ledger = new OutputLedger();
  readonly #gate = new InputGate(
    () => {
      (this.#socket as { pause?: () => void }).pause?.();
      this.#heartbeat?.hold(true);
    },
    () => {
      (this.#socket as { resume?: () => void }).resume?.();
      this.#heartbeat?.hold(false);
    },
  );
  readonly #pingIntervalMs: number | undefined;
  #heartbeat: Heartbeat | undefined;
  #backlogChars = 0;
  readonly #closeTimeoutMs: number;
  readonly #cookies: AcpCookieStore | undefined;
  readonly #ownsCookies: boolean;
  readonly #unlisten: () => void;
  readonly #opened: Promise<void>;
  #open = false;
  #openSettled!: { resolve: () => void; reject: (error: unknown) => void };
  #connectionId: string | undefined;
  /** The receiver, and the end of the link: drop the backlog, settle `opened`, forget our own cookies. */
  readonly #life = new LinkLifecycle((cause) => {
    this.#backlog = [];
    this.#backlogChars = 0;
    this.#ledger.clear();
    clearTimeout(this.#openTimer);
    this.#heartbeat?.stop();
    if (!this.#open && cause === undefined)
      this.#openSettled.reject(new TransportFailedError("The WebSocket link was closed before it opened."));
    if (this.#ownsCookies) this.#cookies?.clear();
  });
  /** Frames sent before the socket opened. */
  #backlog: string[] = [];
  #refusedStatus: number | undefined;
  #socketClosed!: () => void;
  readonly #socketClosedPromise: Promise<void>;
  readonly #deliverText: ((text: string, value: unknown) => void) | undefined;
  #openTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(url: string, options: WebSocketLinkOptions = {}) {
    this.url = url;
    this.#deliverText = options.deliverText;
    this.#maxBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.#highWaterMark = options.writeHighWaterMark ?? 1024 * 1024;
    this.#maxBuffered = resolveMaxBufferedBytes(options.maxBufferedBytes);
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 5000;
    this.#pingIntervalMs = options.pingIntervalMs;
    const platform = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    const Socket = options.WebSocket ?? platform;
    if (Socket === undefined) {
      throw new TypeError(
        "createWebSocketStream needs a WebSocket: this platform has none (Node < 22), so pass " +
          "options.WebSocket (e.g. the ws package's) or use @acpkit/sdk/node.",
      );
    }
    const takesHeaders = options.WebSocket !== undefined && options.WebSocket !== platform;
    this.#cookies =
      options.cookies === "omit" || !takesHeaders ? undefined : (options.cookieStore ?? new MemoryAcpCookieStore());
    this.#ownsCookies = options.cookieStore === undefined;
    const headers: Record<string, string> = { ...options.headers };
    let protocols = options.protocols ? [...options.protocols] : undefined;
    if (options.token !== undefined) {
      if ((options.tokenVia ?? (takesHeaders ? "header" : "subprotocol")) === "header")
        headers.Authorization = `Bearer ${options.token}`;
      else protocols = [...(protocols ?? [WEBSOCKET_SUBPROTOCOL]), bearerSubprotocol(options.token)];
    }
    if (this.#cookies !== undefined) {
      const withCookies = new Headers(headers);
      this.#cookies.apply(withCookies);
      const cookie = withCookies.get("Cookie");
      if (cookie !== null)
        headers[Object.keys(headers).find((name) => name.toLowerCase() === "cookie") ?? "Cookie"] = cookie;
    }
    this.#opened = new Promise<void>((resolve, reject) => (this.#openSettled = { resolve, reject }));
    this.#opened.catch(() => {});
    this.#socketClosedPromise = new Promise<void>((resolve) => (this.#socketClosed = resolve));
    this.#socket = new Socket(url, protocols, Object.keys(headers).length > 0 ? { headers } : undefined);
    this.#unlisten = listen(this.#socket, {
      open: () => this.#onOpen(),
      text: (data) => this.#onText(data),
      close: (code, reason) => this.#onClose(code, reason),
      error: (error) => this.#onError(error),
      upgrade: (upgradeHeaders) => {
        this.#connectionId = upgradeHeaders.get(HEADER_CONNECTION_ID) ?? undefined;
        if (this.#cookies !== undefined) this.#cookies.store(upgradeHeaders);
      },
    });
    const openTimeoutMs = options.openTimeoutMs ?? 30_000;
    this.#openTimer = setTimeout(() => {
      if (!this.#open)
        this.#fail(
          new TransportFailedError(
            `The ACP server at ${url} did not accept the WebSocket within ${openTimeoutMs} ms. Check the URL, ` +
              `or raise openTimeoutMs.`,
          ),
        );
    }, openTimeoutMs);
  }

  /** Resolves when the socket is open; rejects with a `TransportFailedError` when it could not open. */
  get opened(): Promise<void> {
    return this.#opened;
  }

  /** The HTTP status with which the server refused the upgrade, where the socket reports it (`ws`). */
  get refusedStatus(): number | undefined {
    return this.#refusedStatus;
  }

  /** The `Acp-Connection-Id` of the 101, where the socket exposes its headers (`ws`). */
  get connectionId(): string | undefined {
    return this.#connectionId;
  }

  /** The largest message sent or accepted, in UTF-8 bytes. */
  get maxMessageBytes(): number {
    return this.#maxBytes;
  }

  start(receiver: LinkReceiver): void {
    this.#life.start(receiver);
  }

  send(message: AnyMessage): void {
    this.sendText(serializeMessage(message, this.#maxBytes), message);
  }

  /**
   * Sends `text` as one text frame, as is: for bridges that pass frames on unchanged. The caller checks its size.
   * `message` (the parsed frame) tells a reply from a request or notification for backpressure; without it the
   * frame counts as a request.
   */
  sendText(text: string, message?: AnyMessage): void {
    if (this.#life.finished || this.#life.closing) return;
    const reply = message !== undefined && isReply(message);
    const pending = this.pendingOutput;
    if (!reply) refuseOverBacklog(message ?? ({ method: "(frame)" } as AnyMessage), pending, this.#maxBuffered);
    this.#ledger.enter(text.length, reply);
    if (!this.#open) {
      this.#backlog.push(text);
      this.#backlogChars += text.length;
    } else this.#socket.send(text);
    if (reply && this.#ledger.replyPending >= this.#highWaterMark) this.#holdInput();
  }

  /** Output not yet handed to the network: queued before the socket opened, or the socket's `bufferedAmount`. */
  get pendingOutput(): number {
    const pending = this.#open ? (this.#socket.bufferedAmount ?? 0) : this.#backlogChars;
    this.#ledger.leaveUntil(this.#ledger.entered - pending);
    return pending;
  }

  /** Stops reading from the socket for now, where it can (`ws`'s `pause`); browsers cannot. */
  pauseInput(): void {
    this.#gate.reader(true);
  }

  resumeInput(): void {
    this.#gate.reader(false);
  }

  drain(): Promise<void> {
    if (this.#life.finished || this.pendingOutput <= this.#highWaterMark) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.#life.finished || this.pendingOutput <= this.#highWaterMark) resolve();
        else setTimeout(check, 5);
      };
      setTimeout(check, 5);
    });
  }

  /** Our replies are not leaving (the server does not read them): stop reading until they do. */
  #holdInput(): void {
    if (this.#gate.heldByOutput) return;
    this.#gate.output(true);
    void this.drain().then(() => {
      if (this.#gate.heldByOutput) this.#gate.output(false);
    });
  }

  close(): Promise<void> {
    return this.#life.close(() => this.#close());
  }

  async #close(): Promise<void> {
    // What was sent before close() goes out once the socket opens; a socket that never opens is not waited for long.
    if (!this.#open && !this.#life.finished && this.#backlog.length > 0)
      await this.#within(this.#opened.catch(() => {}));
    this.#life.finishLater(undefined);
    try {
      this.#socket.close(1000);
    } catch {
      // Already closing.
    }
    await this.#within(this.#socketClosedPromise);
    this.#unlisten();
  }

  async #within(promise: Promise<void>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#closeTimeoutMs)))]);
    clearTimeout(timer);
  }

  #onOpen(): void {
    clearTimeout(this.#openTimer);
    this.#open = true;
    this.#heartbeat = startHeartbeat(this.#socket, this.#pingIntervalMs, (silenceMs) =>
      this.#fail(
        new TransportFailedError(
          `The ACP server at ${this.url} answered neither a WebSocket ping nor anything else for ` +
            `${Math.round(silenceMs / 1000)} s: it stopped, or the network to it is gone (the connection still ` +
            `looked open).`,
        ),
      ),
    );
    const backlog = this.#backlog;
    this.#backlog = [];
    this.#backlogChars = 0;
    try {
      for (const text of backlog) this.#socket.send(text);
    } catch (error) {
      this.#fail(
        new TransportFailedError(`Could not send on the WebSocket to ${this.url}: ${String(error)}`, { cause: error }),
      );
    }
    this.#openSettled.resolve();
  }

  #onText(data: string): void {
    if (this.#life.finished) return;
    this.#heartbeat?.heard();
    if (data.length * 3 > this.#maxBytes) {
      const bytes = utf8Length(data);
      if (bytes > this.#maxBytes) {
        this.#life.receiver?.problem({ kind: "too_large", bytes, limit: this.#maxBytes, head: data.slice(0, 256) });
        return;
      }
    }
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch (error) {
      const first = data.trimStart().charCodeAt(0);
      this.#life.receiver?.problem({
        kind: "parse",
        detail: error instanceof Error ? error.message : String(error),
        preview: data.length > PREVIEW_CHARS ? data.slice(0, PREVIEW_CHARS) : data,
        looksLikeJson: first === 0x7b || first === 0x5b,
      });
      return;
    }
    if (this.#deliverText) this.#deliverText(data, value);
    else this.#life.receiver?.message(value);
  }

  #onError(error: unknown): void {
    if (!this.#open) this.#refusedStatus ??= refusedStatus(error);
    // A close event follows with the code; before the socket opened, say why it could not.
    if (!this.#open) this.#fail(this.#openError(error));
  }

  #onClose(code: number, reason: string): void {
    this.#heartbeat?.stop();
    this.#socketClosed();
    if (this.#life.finished) return;
    if (!this.#open) return this.#fail(this.#openError(undefined, code));
    const why = reason === "" ? "" : `: ${reason}`;
    this.#fail(
      new TransportFailedError(
        `The ACP server closed the WebSocket (${code} ${describeCloseCode(code)}${why}). The agent went away ` +
          `or the server ended the connection.`,
        { closeCode: code },
      ),
    );
  }

  #openError(error: unknown, code?: number): TransportFailedError {
    const status = this.#refusedStatus;
    if (status !== undefined) {
      const advice =
        status === 401 || status === 403
          ? " Check the token and headers."
          : status === 426 || status === 400 || status === 404 || status === 405
            ? " The server may not offer WebSocket here: try Streamable HTTP."
            : "";
      return new TransportFailedError(
        `The ACP server at ${this.url} refused the WebSocket upgrade with HTTP ${status}.${advice}`,
        { status, cause: error },
      );
    }
    const detail =
      error instanceof Error
        ? error.message
        : code !== undefined
          ? `closed with ${code} ${describeCloseCode(code)}`
          : "it failed";
    return new TransportFailedError(
      `Could not open a WebSocket to the ACP server at ${this.url} (${detail}). Check the URL and that the ` +
        `server is running.`,
      { ...(code === undefined ? {} : { closeCode: code }), cause: error },
    );
  }

  #fail(error: TransportFailedError): void {
    if (this.#life.finished) return;
    if (!this.#open) this.#openSettled.reject(error);
    this.#life.finish(error);
    try {
      this.#socket.close();
    } catch {
      // Never opened or already closed.
    }
  }
}
