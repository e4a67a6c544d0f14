/**
 * What the MCP-over-ACP HTTP bridge checks before it reads a body, and how it answers a refusal: a JSON-RPC error
 * body with an HTTP status, as MCP's Streamable HTTP transport does.
 * See MCP: [Streamable HTTP](https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http)
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** A refusal: HTTP status, JSON-RPC error code and message, extra headers. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
  headers?: Record<string, string>;
}

/** Whether an `Accept` header admits both JSON and SSE (`*\/*` and `application/*` count). */
export function acceptsJsonAndSse(accept: string | undefined): boolean {
  let json = false;
  let sse = false;
  for (const item of (accept ?? "").split(",")) {
    const type = item.split(";")[0]!.trim().toLowerCase();
    json ||= type === "application/json" || type === "application/*" || type === "*/*";
    sse ||= type === "text/event-stream" || type === "text/*" || type === "*/*";
  }
  return json && sse;
}

/**
 * The transport-level checks of one request to `http://127.0.0.1:PORT/SERVER`: DNS rebinding (Host must be the
 * loopback address and port, no browser Origin), method (POST; no GET stream, no session to DELETE), Accept and
 * Content-Type. Authentication is checked by the caller, which knows the server's token.
 */
export function transportRefusal(req: IncomingMessage, port: number): Refusal | undefined {
  if (req.headers.host !== `127.0.0.1:${port}`)
    return { status: 403, code: -32600, message: `Forbidden: Host must be 127.0.0.1:${port}` };
  if (req.headers.origin !== undefined)
    return { status: 403, code: -32600, message: "Forbidden: browser origins are not accepted" };
  if (req.method !== "POST") {
    return {
      status: 405,
      code: -32600,
      message: "Method Not Allowed: this endpoint serves POST only (no GET stream, no session to delete)",
      headers: { Allow: "POST" },
    };
  }
  if (!acceptsJsonAndSse(req.headers.accept))
    return {
      status: 406,
      code: -32600,
      message: "Not Acceptable: Accept must include application/json and text/event-stream",
    };
  if (!(req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
    return { status: 415, code: -32600, message: "Unsupported Media Type: Content-Type must be application/json" };
  }
  return undefined;
}

/** Answers with a JSON-RPC error body (the request is drained so the socket can be reused). */
export function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  refusal: Refusal,
  id: string | number | null = null,
  data?: unknown,
): void {
  req.resume();
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code: refusal.code, message: refusal.message, ...(data === undefined ? {} : { data }) },
  });
  res.writeHead(refusal.status, { "Content-Type": "application/json", ...refusal.headers });
  res.end(body);
}

/** Reads a body up to `maxBytes`; undefined when it is larger (reading stops at once). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
