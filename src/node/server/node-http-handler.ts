/**
 * `createNodeHttpHandler`: an `AcpServer` as a `node:http` / `node:https` / `node:http2` (compatibility API) request
 * listener. Same call shape as the official SDK 2.4.0's `@agentclientprotocol/sdk/experimental/node`.
 */
import type { AcpServer } from "../../remote/server/acp-server.js";
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from "../../remote/server/limits.js";
import { RequestBodyTooLargeError, socketInfoOf, toWebRequest, type NodeRequest } from "./node-request.js";
import { writeTextError, writeWebResponse, type NodeResponse } from "./node-response.js";

export { DEFAULT_MAX_REQUEST_BODY_BYTES };

/** Options of `createNodeHttpHandler`. */
export interface NodeHttpHandlerOptions {
  /** Largest POST body (413 beyond). Default: the server's `maxRequestBodyBytes` (16 MiB unless set). */
  readonly maxRequestBodyBytes?: number;
}

/** How long a refused oversized body may keep arriving (and being discarded) before its socket is closed. */
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
    void handle(server, request, response, maxBytes);
  };
}

async function handle(
  server: AcpServer,
  request: NodeRequest,
  response: NodeResponse,
  maxBytes: number,
): Promise<void> {
  const abort = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) abort.abort(new Error("the client closed the request"));
  };
  response.once("close", onClose);
  try {
    const web = await toWebRequest(request, abort.signal, maxBytes);
    await writeWebResponse(response, await server.handleRequest(web, { socket: socketInfoOf(request) }));
  } catch (error) {
    if (error instanceof RequestBodyTooLargeError) {
      refuseBody(request, response, error.message);
      return;
    }
    if (abort.signal.aborted) return;
    writeTextError(response, 500, "Internal Server Error: the ACP server failed on this request; see its log");
  } finally {
    response.off("close", onClose);
  }
}

/** Answers 413 and discards what is left of the body for a while, so the client can read the answer. */
function refuseBody(request: NodeRequest, response: NodeResponse, message: string): void {
  writeTextError(response, 413, message, { Connection: "close" });
  request.resume();
  const timer = setTimeout(() => request.destroy(), DISCARD_MS);
  timer.unref();
  request.once("end", () => clearTimeout(timer));
  request.once("close", () => clearTimeout(timer));
}
