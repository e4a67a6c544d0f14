/**
 * The Streamable HTTP profile: POST (client->agent messages; `initialize` answered 200 with the JSON response and
 * `Acp-Connection-Id`, everything else 202), GET (SSE streams, connection-scoped or session-scoped), DELETE (202).
 * Statuses as the RFD lists them: 415, 406, 400, 404, 501 for batches; plus 413 (body too large), 409 (a stream
 * already has a reader), 429 (too many streams or pending requests), 503 (server full or closing).
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Unified Endpoint Routing,
 * Content Negotiation and Validation)
 */
import { isRecord } from "../../jsonrpc/messages.js";
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID } from "../client/http-protocol.js";
import type { AgentConnector } from "../../acp/agent-connector.js";
import { errorText, InitializeFailure, initializeFailedText } from "./errors.js";
import { HttpOutbound } from "./http-outbound.js";
import { acceptsEventStream, isJsonContentType, readBodyText } from "./request-body.js";
import {
  emptyResponse,
  jsonResponse,
  jsonRpcErrorResponse,
  jsonTextResponse,
  SSE_HEADERS,
  textResponse,
} from "./responses.js";
import { isInitializeRequest, kindOf, routeOfClientMessage } from "./routing.js";
import type { ServerContext } from "./server-context.js";
import type { ServerConnection } from "./server-connection.js";
import { sseBody } from "./sse-body.js";

/** A POST: one JSON-RPC message from the client. */
export async function handlePost(
  context: ServerContext,
  request: Request,
  connector: AgentConnector,
  remoteAddress?: string,
): Promise<Response> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return textResponse(415, "Unsupported Media Type: POST a JSON-RPC message with Content-Type: application/json");
  }
  const { maxRequestBodyBytes } = context.limits;
  const text = await readBodyText(request, maxRequestBodyBytes);
  if (text === undefined) {
    return textResponse(
      413,
      `Payload Too Large: the body is over ${maxRequestBodyBytes} bytes (maxRequestBodyBytes); send smaller messages or raise the limit`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The id of a body that does not parse is unknowable, so the error cannot go on a stream: it is the answer.
    return jsonRpcErrorResponse(400, -32700, "Parse error: the POST body is not valid JSON");
  }
  if (Array.isArray(value))
    return jsonRpcErrorResponse(
      501,
      -32600,
      "Invalid Request: JSON-RPC batches are not supported by ACP; send one message per POST",
    );
  if (!isRecord(value))
    return jsonRpcErrorResponse(400, -32600, "Invalid Request: a JSON-RPC message is a JSON object");
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  if (isInitializeRequest(value)) {
    if (connectionId)
      return textResponse(400, "Bad Request: initialize starts a new connection; POST it without Acp-Connection-Id");
    return initialize(context, request, connector, value, text.length, remoteAddress);
  }
  if (!connectionId)
    return textResponse(
      400,
      "Bad Request: missing Acp-Connection-Id (POST initialize first; its response carries the id)",
    );
  const connection = context.find(connectionId);
  if (!connection) return unknownConnection();
  connection.requestStarted();
  try {
    return await forward(context, connection, request, value, text.length);
  } finally {
    connection.requestEnded();
  }
}

async function forward(
  context: ServerContext,
  connection: ServerConnection,
  request: Request,
  message: Record<string, unknown>,
  chars: number,
): Promise<Response> {
  const headerSessionId = request.headers.get(HEADER_SESSION_ID) || undefined;
  if (headerSessionId !== undefined && headerSessionId.length > context.limits.maxIdLength)
    return sessionIdTooLong(context);
  const kind = kindOf(message);
  if (kind === "response") {
    const refusal = connection.forwardResponse(message, chars, headerSessionId);
    return refusal ? textResponse(refusal.status, refusal.message) : emptyResponse(202);
  }
  const route = routeOfClientMessage(message.method as string, message.params, headerSessionId);
  if (!route.ok) return textResponse(400, `Bad Request: ${route.reason}`);
  if (route.sessionId !== undefined && route.sessionId.length > context.limits.maxIdLength)
    return sessionIdTooLong(context);
  if (kind === "request") {
    // An answer adds output: a client that is not reading what it has waits here, and cannot make the agent produce more.
    const aborted = await waitForRoom(connection, request.signal);
    if (aborted) return textResponse(499, "Client Closed Request");
    if (!connection.isOpen) return unknownConnection();
  }
  if (connection.agentLink.inboxChars > context.limits.maxBufferedBytes) {
    return textResponse(
      429,
      "Too Many Requests: the agent is not taking messages as fast as they come; retry shortly",
      { "Retry-After": "1" },
    );
  }
  const refusal = connection.forwardCall(message, chars, route.sessionId);
  return refusal ? textResponse(refusal.status, refusal.message) : emptyResponse(202);
}

/** Resolves true when `signal` aborted before the connection had room for more output. */
async function waitForRoom(connection: ServerConnection, signal: AbortSignal): Promise<boolean> {
  const output = connection.output!;
  if (!output.backlogged) return false;
  if (signal.aborted) return true;
  let onAbort!: () => void;
  const abort = new Promise<boolean>((resolve) => {
    onAbort = () => resolve(true);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([output.whenRoom().then(() => false), abort]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

async function initialize(
  context: ServerContext,
  request: Request,
  connector: AgentConnector,
  message: Record<string, unknown>,
  chars: number,
  remoteAddress: string | undefined,
): Promise<Response> {
  if (message.id === null) return textResponse(400, "Bad Request: initialize must have an id (not null)");
  const opened = context.openConnection("http", connector, remoteAddress);
  if (typeof opened === "string") return textResponse(503, `Service Unavailable: ${opened}`, { "Retry-After": "5" });
  const connection = opened;
  try {
    connection.start(
      new HttpOutbound(context.limits, {
        onLimit: connection.limitExceeded,
        onOpenStreams: (count) => connection.openStreamsChanged(count),
      }),
    );
    const answer = await connection.initialize(message, chars, { signal: request.signal });
    const headers = { [HEADER_CONNECTION_ID]: connection.id };
    if ("error" in answer.message) {
      // The agent refused: nothing can follow on this connection (a second initialize is not allowed on it).
      void connection.end({ reason: "initialize refused" });
      return jsonTextResponse(200, answer.text, headers);
    }
    context.register(connection);
    return jsonTextResponse(200, answer.text, headers);
  } catch (error) {
    const failure =
      error instanceof InitializeFailure ? error : new InitializeFailure(500, errorText(error), { cause: error });
    context.logger.warn("a remote connection failed to initialize", {
      connectionId: connection.id,
      status: failure.status,
      reason: failure.message,
    });
    void connection.end({ reason: "initialize failed", error: failure });
    return jsonResponse(failure.status, {
      jsonrpc: "2.0",
      id: message.id,
      error: { code: -32603, message: initializeFailedText(failure), data: failure.message },
    });
  }
}

/** A GET: an SSE stream, connection-scoped or (with `Acp-Session-Id`) session-scoped. */
export function handleGet(context: ServerContext, request: Request): Response {
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
    return textResponse(
      426,
      "Upgrade Required: this handler serves Streamable HTTP; WebSocket upgrades go through the server's upgrade handler",
    );
  }
  if (!acceptsEventStream(request.headers.get("accept"))) {
    return textResponse(406, "Not Acceptable: a GET opens an SSE stream; send Accept: text/event-stream");
  }
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  if (!connectionId)
    return textResponse(400, "Bad Request: missing Acp-Connection-Id (the id the initialize response carried)");
  const connection = context.find(connectionId);
  if (!connection) return unknownConnection();
  const sessionId = request.headers.get(HEADER_SESSION_ID) || undefined;
  if (sessionId !== undefined && sessionId.length > context.limits.maxIdLength) return sessionIdTooLong(context);
  const queue = (connection.output as HttpOutbound).openStream(sessionId);
  const what = sessionId === undefined ? "the connection stream" : `the stream of session "${sessionId}"`;
  if (queue === "busy")
    return textResponse(409, `Conflict: ${what} is already open in another request; one reader per stream`);
  if (queue === "too-many") {
    return textResponse(
      429,
      `Too Many Requests: ${context.limits.maxOpenSessionStreams} session streams are open on this connection (maxOpenSessionStreams)`,
    );
  }
  if (queue === "closed") return unknownConnection();
  const body = sseBody(queue, { keepAliveMs: context.limits.keepAliveMs, onClose: () => {} });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/** A DELETE: ends the connection and stops its agent. */
export function handleDelete(context: ServerContext, request: Request): Response {
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  if (!connectionId) return textResponse(400, "Bad Request: missing Acp-Connection-Id (the connection to end)");
  const connection = context.find(connectionId);
  if (!connection) return unknownConnection();
  void connection.end({ reason: "deleted" });
  return emptyResponse(202);
}

function unknownConnection(): Response {
  return textResponse(
    404,
    "Not Found: unknown Acp-Connection-Id (it ended, or never existed); POST initialize to start a new connection",
  );
}

function sessionIdTooLong(context: ServerContext): Response {
  return textResponse(400, `Bad Request: the session id is longer than maxIdLength (${context.limits.maxIdLength})`);
}
