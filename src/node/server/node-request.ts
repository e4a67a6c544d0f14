/**
 * Node's incoming requests (`node:http` `IncomingMessage`, `node:http2` compatibility `Http2ServerRequest`) as
 * fetch-style `Request`s for `AcpServer`, and what Node knows of their socket.
 *
 * Nothing of the body is read here: the `Request` gets a body stream that reads from the socket only when the
 * server pulls it, which it does after the method, path, Host, Origin and token passed (a refused request costs no
 * body byte), chunk by chunk within its size limit. The URL is built from a Host parsed as an RFC 3986 authority
 * (`parseAuthority`), never from text that could move the path, and the path routed on is the raw one: a target
 * that URL parsing would change (dot segments, `%2e`, backslashes) is reported so the handler answers 404.
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import type { SocketInfo } from "../../remote/server/access.js";
import { parseAuthority } from "../../remote/server/authority.js";

/** An incoming request from either Node server. */
export type NodeRequest = IncomingMessage | Http2ServerRequest;

/** The body was larger than the limit; the handler answers 413. */
export class RequestBodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(
      `Payload Too Large: the body is over ${maxBytes} bytes (maxRequestBodyBytes); send smaller messages or ` +
        `raise the limit`,
    );
    this.name = "RequestBodyTooLargeError";
  }
}

/** What the request's socket says about both ends (for the Host check and the connection log). */
export function socketInfoOf(request: NodeRequest): SocketInfo {
  const socket = request.socket;
  return {
    localAddress: socket?.localAddress ?? undefined,
    localPort: socket?.localPort ?? undefined,
    remoteAddress: socket?.remoteAddress ?? undefined,
    remotePort: socket?.remotePort ?? undefined,
  };
}

/**
 * The request's headers as `Headers`: HTTP/2 pseudo-headers dropped, `:authority` given as `Host` when there is none.
 */
export function headersOf(request: NodeRequest): Headers {
  const headers = new Headers();
  const raw = request.headers as Record<string, string | string[] | undefined>;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const authority = raw[":authority"];
  if (!headers.has("host") && typeof authority === "string") headers.set("host", authority);
  return headers;
}

/**
 * The request's URL: the scheme of the socket, the Host when it parses as an authority (else a name no allow-list
 * holds; the access check answers 400 for the header itself), and the request-target as sent.
 */
export function urlOf(request: NodeRequest, headers: Headers): string {
  const encrypted = (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const scheme = encrypted ? "https" : "http";
  const target = request.url ?? "/";
  const path = target.startsWith("/") ? target : "/";
  const authority = parseAuthority(headers.get("host") ?? "");
  const host = authority === undefined ? "invalid-host.invalid" : authority.host + portSuffix(authority.port);
  try {
    return new URL(`${scheme}://${host}${path}`).href;
  } catch {
    return `${scheme}://${host}/`;
  }
}

function portSuffix(port: number | undefined): string {
  return port === undefined ? "" : `:${port}`;
}

/**
 * Whether the request-target is routed as it was sent: origin-form (`/path?query`) whose path URL parsing leaves
 * alone. `/healthz/../acp`, `/%2e%2e/acp`, `/./acp` or `\\acp` are not: the server must not serve them as `/acp`.
 */
export function isPlainTarget(request: NodeRequest): boolean {
  const target = request.url ?? "";
  if (!target.startsWith("/")) return false;
  const query = target.indexOf("?");
  const path = query === -1 ? target : target.slice(0, query);
  try {
    return new URL(path, "http://h").pathname === path;
  } catch {
    return false;
  }
}

/** Methods `Request` refuses to carry (fetch forbids them); the handler answers them 405 itself. */
export const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * The body of a Node request as a web stream that reads nothing until pulled, one chunk per pull, and fails with
 * `RequestBodyTooLargeError` as soon as it passes `maxBytes` (at once for a `Content-Length` over it). Nothing is
 * buffered beyond the chunk Node's parser holds.
 */
export class NodeRequestBody {
  readonly stream: ReadableStream<Uint8Array>;
  #detach: (() => void) | undefined;
  #received = 0;

  constructor(
    private readonly request: NodeRequest,
    private readonly maxBytes: number,
  ) {
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.#pull(controller),
        cancel: () => this.#release(),
      },
      { highWaterMark: 0 },
    );
  }

  /** Whether the whole body arrived (a body never read may not have). */
  get complete(): boolean {
    return this.request.complete || this.request.readableEnded;
  }

  #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const request = this.request;
    const declared = Number(request.headers["content-length"]);
    if (this.#received === 0 && Number.isFinite(declared) && declared > this.maxBytes)
      return Promise.reject(new RequestBodyTooLargeError(this.maxBytes));
    return new Promise<void>((resolve, reject) => {
      const finish = (action: () => void) => {
        this.#release();
        action();
      };
      const read = (): void => {
        const chunk = request.read() as Buffer | null;
        if (chunk !== null) {
          this.#received += chunk.length;
          if (this.#received > this.maxBytes) return finish(() => reject(new RequestBodyTooLargeError(this.maxBytes)));
          return finish(() => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            resolve();
          });
        }
        if (request.readableEnded) finish(() => (controller.close(), resolve()));
      };
      const onEnd = () => finish(() => (controller.close(), resolve()));
      const onError = (error: Error) => finish(() => reject(error));
      const onClose = () => {
        if (!request.readableEnded)
          finish(() => reject(new Error("the client closed the request before its body ended")));
      };
      request.on("readable", read);
      request.once("end", onEnd);
      request.once("error", onError);
      request.once("close", onClose);
      this.#detach = () => {
        request.off("readable", read);
        request.off("end", onEnd);
        request.off("error", onError);
        request.off("close", onClose);
      };
      read();
    });
  }

  /** Stops listening to the request (the stream was cancelled, or one pull is done). */
  #release(): void {
    this.#detach?.();
    this.#detach = undefined;
  }
}

/**
 * A `Request` for `AcpServer.handleRequest`, its body (for methods that have one) read only when the server pulls
 * it (`NodeRequestBody`). Throws for a method `Request` cannot carry (`FORBIDDEN_METHODS`).
 */
export function toWebRequest(
  request: NodeRequest,
  signal: AbortSignal,
  maxBodyBytes: number,
): { web: Request; body: NodeRequestBody | undefined } {
  const headers = headersOf(request);
  const method = request.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : new NodeRequestBody(request, maxBodyBytes);
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (body !== undefined) {
    init.body = body.stream;
    init.duplex = "half";
  }
  return { web: new Request(urlOf(request, headers), init), body };
}
