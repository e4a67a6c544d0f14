/**
 * `createNodeHttpHandler`: an `AcpServer` as a `node:http` / `node:https` / `node:http2` (compatibility API) request
 * listener. Same call shape as the official SDK 2.4.0's `@agentclientprotocol/sdk/experimental/node`.
 *
 * Admission comes from the headers alone: a method `Request` cannot carry (TRACE, TRACK, CONNECT) is 405, a target
 * URL parsing would rewrite is 404, and the server checks the path, Host, Origin and token before it pulls a byte of
 * the body (`NodeRequestBody`). A request answered before its body arrived whole is answered with
 * `Connection: close` and its socket closed: nothing more is read from it than a short discard.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import type { AcpServer } from "../../remote/server/acp-server.js";
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from "../../remote/server/limits.js";
import { ALLOWED_METHODS } from "../../remote/server/responses.js";
import {
  FORBIDDEN_METHODS,
  isPlainTarget,
  RequestBodyTooLargeError,
  socketInfoOf,
  toWebRequest,
  type NodeRequest,
  type NodeRequestBody,
} from "./node-request.js";
import { writeTextError, writeWebResponse, type NodeResponse } from "./node-response.js";
import type { SocketAdmission } from "./socket-admission.js";

export { DEFAULT_MAX_REQUEST_BODY_BYTES };

/** Options of `createNodeHttpHandler`. */
export interface NodeHttpHandlerOptions {
  /** Largest POST body (413 beyond). Default: the server's `maxRequestBodyBytes` (16 MiB unless set). */
  readonly maxRequestBodyBytes?: number;
  /** acpkit: the ledger of unauthenticated sockets (`listenAcp` passes its own); told when a request passed. */
  readonly admission?: SocketAdmission;
  /** acpkit: where a request the server failed on is reported. Default: the server's logger. */
  readonly logger?: Logger;
}

/** How long a refused body may keep arriving (and being discarded) before its socket is closed. */
const DISCARD_MS = 5_000;

/** A request listener that hands every request to `server.handleRequest` and writes its answer. */
export function createNodeHttpHandler(
  server: AcpServer,
  options: NodeHttpHandlerOptions = {},
): (request: NodeRequest, response: NodeResponse) => void {
  const maxBytes = options.maxRequestBodyBytes ?? server.limits.maxRequestBodyBytes;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new RangeError(`maxRequestBodyBytes must be a non-negative safe integer, got ${String(maxBytes)}`);
  return (request, response) => {
    void handle(server, request, response, maxBytes, options);
  };
}

async function handle(
  server: AcpServer,
  request: NodeRequest,
  response: NodeResponse,
  maxBytes: number,
  options: NodeHttpHandlerOptions,
): Promise<void> {
  const socket = socketInfoOf(request);
  const { admission } = options;
  admission?.requestStarted(socket.remoteAddress, socket.remotePort);
  response.once("close", () => admission?.requestEnded(socket.remoteAddress, socket.remotePort));
  const method = request.method ?? "GET";
  if (FORBIDDEN_METHODS.has(method)) {
    refuse(request, response, undefined, 405, `Method Not Allowed: the ACP endpoint answers ${ALLOWED_METHODS}`, {
      Allow: ALLOWED_METHODS,
    });
    return;
  }
  if (!isPlainTarget(request)) {
    refuse(
      request,
      response,
      undefined,
      404,
      "Not Found: this server routes the path exactly as sent, and this one has dot segments, encoded dots or " +
        "characters URL parsing would change; request the endpoint's path itself (e.g. /acp)",
    );
    return;
  }
  const abort = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) abort.abort(new Error("the client closed the request"));
  };
  response.once("close", onClose);
  let body: NodeRequestBody | undefined;
  try {
    const built = toWebRequest(request, abort.signal, maxBytes);
    body = built.body;
    const answer = await server.handleRequest(built.web, {
      socket,
      onAccessGranted: () => admission?.authenticated(socket.remoteAddress, socket.remotePort),
    });
    if (body !== undefined && !body.complete) closeAfter(request, response);
    await writeWebResponse(response, answer);
  } catch (error) {
    if (error instanceof RequestBodyTooLargeError) {
      refuse(request, response, body, 413, error.message);
      return;
    }
    if (abort.signal.aborted) return;
    (options.logger ?? server.logger).error("the ACP server failed on a request", {
      method,
      error: error instanceof Error ? error.message : String(error),
    });
    refuse(request, response, body, 500, "Internal Server Error: the ACP server failed on this request; see its log");
  } finally {
    response.off("close", onClose);
  }
}

/** Answers a refusal; a body not read whole is discarded for a while, then its socket closed. */
function refuse(
  request: NodeRequest,
  response: NodeResponse,
  body: NodeRequestBody | undefined,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const unread = body === undefined ? !(request.complete || request.readableEnded) : !body.complete;
  if (unread) closeAfter(request, response);
  writeTextError(response, status, message, headers);
}

/**
 * The request's body is not read whole: the answer says `Connection: close` (HTTP/1.1), what is left is discarded
 * (never buffered) for `DISCARD_MS` at most so the client can read the answer, then the socket is closed.
 */
function closeAfter(request: NodeRequest, response: NodeResponse): void {
  if (!response.headersSent && !("stream" in response && response.stream)) response.setHeader("Connection", "close");
  response.once("finish", () => {
    request.resume();
    const timer = setTimeout(() => request.destroy(), DISCARD_MS);
    timer.unref();
    request.once("end", () => clearTimeout(timer));
    request.once("close", () => clearTimeout(timer));
  });
}
