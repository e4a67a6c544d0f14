/**
 * The responses an ACP server sends: plain-text errors that say what was wrong and what to do, JSON-RPC error
 * bodies, the SSE stream response, CORS headers for explicitly allowed origins.
 */
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID, JSON_MIME_TYPE } from "../http-protocol.js";

/** A `text/plain` response. */
export function textResponse(status: number, body: string, headers?: Record<string, string>): Response {
  return new Response(body, {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

/** A JSON response (a JSON-RPC message). */
export function jsonResponse(status: number, value: unknown, headers?: Record<string, string>): Response {
  return jsonTextResponse(status, JSON.stringify(value), headers);
}

/** A JSON response from text already serialized. */
export function jsonTextResponse(status: number, text: string, headers?: Record<string, string>): Response {
  return new Response(text, {
    status,
    headers: { "Content-Type": JSON_MIME_TYPE, "Cache-Control": "no-store", ...headers },
  });
}

/** A JSON-RPC error response with `id: null` (the id could not be read) as the body of an HTTP error. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, data?: unknown): Response {
  return jsonResponse(status, {
    jsonrpc: "2.0",
    id: null,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });
}

/** A response with no body. */
export function emptyResponse(status: number, headers?: Record<string, string>): Response {
  return new Response(null, { status, headers });
}

/** The headers of an SSE stream (no hop-by-hop headers: they are forbidden in HTTP/2). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  // Tells nginx-style proxies not to buffer the stream.
  "X-Accel-Buffering": "no",
};

/** Methods the endpoint answers. */
export const ALLOWED_METHODS = "GET, POST, DELETE";

/** CORS headers for a cross-origin caller that is explicitly allowed. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Allow-Credentials": "true",
    "Access-Control-Expose-Headers": HEADER_CONNECTION_ID,
    Vary: "Origin",
  };
}

/** The answer to a CORS preflight from an allowed origin. */
export function preflightResponse(origin: string): Response {
  return emptyResponse(204, {
    ...corsHeaders(origin),
    "Access-Control-Allow-Methods": ALLOWED_METHODS,
    "Access-Control-Allow-Headers":
      `Authorization, Content-Type, Accept, ` +
      `${HEADER_CONNECTION_ID}, ${HEADER_SESSION_ID}, ` +
      `Acp-Protocol-Version`,
    "Access-Control-Max-Age": "600",
  });
}

/**
 * What `new Headers(...)` takes: a `Headers`, `[name, value]` pairs or a record. Spelled from the constructor, not as
 * the DOM lib's `HeadersInit`, so that the declarations compile without `lib: ["dom"]` (Node's types have `Headers`).
 */
export type HeadersInitLike = ConstructorParameters<typeof Headers>[0];

/** A copy of `response` with `headers` added (appended, so several `Set-Cookie` survive). */
export function withHeaders(response: Response, headers: HeadersInitLike | undefined): Response {
  if (headers === undefined) return response;
  const extra = new Headers(headers);
  let any = false;
  extra.forEach(() => (any = true));
  if (!any) return response;
  const merged = new Headers(response.headers);
  const cookies = typeof extra.getSetCookie === "function" ? extra.getSetCookie() : [];
  extra.forEach((value, name) => {
    if (name.toLowerCase() === "set-cookie" && cookies.length > 0) return;
    merged.set(name, value);
  });
  for (const cookie of cookies) merged.append("Set-Cookie", cookie);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
