/**
 * Node's incoming requests (`node:http` `IncomingMessage`, `node:http2` compatibility `Http2ServerRequest`) as
 * fetch-style `Request`s for `AcpServer`, and what Node knows of their socket. The body is read here with its size
 * limit, so an oversized one is refused (413) without being buffered.
 */
import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import type { SocketInfo } from "../../remote/server/access.js";

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
 * The request's URL. The Host header is kept as sent (the access check judges it); a host that does not make a valid
 * URL is replaced in the URL only, by a name that no allow-list contains.
 */
export function urlOf(request: NodeRequest, headers: Headers): string {
  const encrypted = (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const scheme = encrypted ? "https" : "http";
  const path = request.url ?? "/";
  const host = headers.get("host") ?? "";
  try {
    const url = new URL(`${scheme}://${host}${path.startsWith("/") ? path : `/${path}`}`);
    if (url.host !== "" && url.username === "" && url.password === "") return url.href;
  } catch {
    // Fall through to the placeholder.
  }
  return `${scheme}://invalid-host.invalid${path.startsWith("/") ? path : "/"}`;
}

/**
 * Reads the body, at most `maxBytes` of it: rejects with `RequestBodyTooLargeError` as soon as it grows past that
 * (or at once, for a `Content-Length` over it), leaving the rest unread.
 */
export function readNodeBody(request: NodeRequest, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(new RequestBodyTooLargeError(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        cleanup();
        reject(new RequestBodyTooLargeError(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onAborted = () => onError(new Error("the client aborted the request"));
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("aborted", onAborted);
  });
}

/** A `Request` for `AcpServer.handleRequest`, the body read (within `maxBodyBytes`) for methods that have one. */
export async function toWebRequest(request: NodeRequest, signal: AbortSignal, maxBodyBytes: number): Promise<Request> {
  const headers = headersOf(request);
  const method = request.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : await readNodeBody(request, maxBodyBytes);
  return new Request(urlOf(request, headers), { method, headers, body: body as BodyInit | undefined, signal });
}
