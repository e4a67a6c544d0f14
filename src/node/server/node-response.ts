/**
 * Writing a fetch-style `Response` to Node (`node:http` `ServerResponse`, `node:http2` `Http2ServerResponse`): the
 * status and headers at once (so an SSE client knows its stream is open), then the body with backpressure: the next
 * chunk is read from the body only when the socket took the last one, so a client that stops reading stops the body.
 */
import type { ServerResponse } from "node:http";
import type { Http2ServerResponse } from "node:http2";

/** An outgoing response of either Node server. */
export type NodeResponse = ServerResponse | Http2ServerResponse;

/** Headers that belong to one HTTP/1.1 hop; HTTP/2 forbids them. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]);

function isHttp2(response: NodeResponse): boolean {
  return "stream" in response && (response as Http2ServerResponse).stream !== undefined;
}

/** True once the response can take no more writes. */
function isGone(response: NodeResponse): boolean {
  return response.destroyed || response.writableEnded;
}

/** Sets the status and headers (several `Set-Cookie` kept apart; hop-by-hop headers dropped on HTTP/2). */
export function writeHead(response: NodeResponse, web: Response): void {
  const h2 = isHttp2(response);
  response.statusCode = web.status;
  const cookies = web.headers.getSetCookie();
  web.headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower === "set-cookie" || (h2 && HOP_BY_HOP.has(lower))) return;
    response.setHeader(name, value);
  });
  if (cookies.length > 0) response.setHeader("Set-Cookie", cookies);
}

/** Writes `web` to `response`; resolves when it is written, or when the client went away (the body is cancelled). */
export async function writeWebResponse(response: NodeResponse, web: Response): Promise<void> {
  writeHead(response, web);
  const body = web.body;
  if (body === null) {
    response.end();
    return;
  }
  (response as ServerResponse).flushHeaders?.();
  const reader = body.getReader();
  let gone = false;
  let wake: (() => void) | undefined;
  const onGone = () => {
    gone = true;
    wake?.();
    reader.cancel().catch(() => {});
  };
  const onDrain = () => wake?.();
  response.on("close", onGone);
  response.on("error", onGone);
  response.on("drain", onDrain);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || gone || isGone(response)) break;
      if (!(response as ServerResponse).write(value)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (gone || isGone(response)) resolve();
        });
        wake = undefined;
      }
      if (gone || isGone(response)) break;
    }
    if (!gone && !isGone(response)) response.end();
  } catch {
    // The body failed after the status was sent: abort the response so it does not look complete.
    if (!isGone(response)) response.destroy();
  } finally {
    response.off("close", onGone);
    response.off("error", onGone);
    response.off("drain", onDrain);
    if (gone || isGone(response)) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Writes a short plain-text error response, if the status was not sent yet. */
export function writeTextError(
  response: NodeResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (isGone(response)) return;
  if (!response.headersSent) {
    response.statusCode = status;
    response.setHeader("Content-Type", "text/plain; charset=utf-8");
    for (const [name, value] of Object.entries(headers))
      if (!(isHttp2(response) && HOP_BY_HOP.has(name.toLowerCase()))) response.setHeader(name, value);
  }
  response.end(message);
}
