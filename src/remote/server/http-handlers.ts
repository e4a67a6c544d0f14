/**
 * The Streamable HTTP profile: POST (client->agent messages; `initialize` answered 200 with the JSON response and
 * `Acp-Connection-Id`, everything else 202), GET (SSE streams, connection-scoped or session-scoped), DELETE (202).
 * Statuses as the RFD lists them: 415, 406, 400, 404, 501 for batches; plus 413 (body too large), 409 (a stream
 * already has a reader), 429 (too many streams or pending requests), 503 (server full or closing), 410 (a
 * `Last-Event-ID` older than the stream keeps).
 *
 * The handlers keep no connection state: the backend (`context.backend`) finds connections, carries messages to
 * their agent and opens their streams, wherever they live.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Unified Endpoint Routing,
 * Content Negotiation and Validation)
 */
import { HEADER_CONNECTION_ID, HEADER_SESSION_ID } from "../http-protocol.js";
import type { AgentConnector } from "../../acp/agent-connector.js";
import { ServerBackendError, type BackendConnection, type Refusal } from "./backend/backend.js";
import { errorAnswerText, readClientMessage } from "./client-message.js";
import { errorText, InitializeFailure, initializeFailedText } from "./errors.js";
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
import { sseBody } from "./sse-body.js";

/** A POST: one JSON-RPC message from the client. */
export async function handlePost(
  context: ServerContext,
  request: Request,
  connector: AgentConnector,
  remoteAddress?: string,
  credential?: string,
): Promise<Response> {
  if (!isJsonContentType(request.headers.get("content-type"))) {
    return textResponse(415, "Unsupported Media Type: POST a JSON-RPC message with Content-Type: application/json");
  }
  const { maxRequestBodyBytes, requestBodyTimeoutMs } = context.limits;
  const text = await readBodyText(request, {
    maxBytes: maxRequestBodyBytes,
    timeoutMs: requestBodyTimeoutMs,
    budget: context.bodyBudget,
  });
  if (typeof text !== "string") return textResponse(text.status, text.message, text.headers);
  // What is not one valid message is answered at once: its id is unknowable or unusable, so the error cannot go
  // on a stream, it is the answer.
  const read = readClientMessage(text, "POST");
  if (!read.ok) return jsonRpcErrorResponse(read.status, read.code, read.message);
  const { message: value, rawId } = read;
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  if (isInitializeRequest(value)) {
    if (connectionId)
      return textResponse(400, "Bad Request: initialize starts a new connection; POST it without Acp-Connection-Id");
    return initialize(context, request, connector, value, text, remoteAddress, rawId, credential);
  }
  if (!connectionId)
    return textResponse(
      400,
      "Bad Request: missing Acp-Connection-Id (POST initialize first; its response carries the id)",
    );
  try {
    const connection = await context.backend.connection(connectionId);
    if (!connection) return unknownConnection();
    if (!sameCredential(connection, credential)) return otherCredential();
    const headerSessionId = request.headers.get(HEADER_SESSION_ID) || undefined;
    if (headerSessionId !== undefined && headerSessionId.length > context.limits.maxIdLength)
      return sessionIdTooLong(context);
    const message = value;
    let refusal: Refusal | undefined;
    if (kindOf(message) === "response") {
      refusal = await connection.sendResponse({
        message,
        text,
        headerSessionId,
        ...(rawId === undefined ? {} : { rawId }),
      });
    } else {
      const route = routeOfClientMessage(message.method as string, message.params, headerSessionId);
      if (!route.ok) return textResponse(400, `Bad Request: ${route.reason}`);
      if (route.sessionId !== undefined && route.sessionId.length > context.limits.maxIdLength)
        return sessionIdTooLong(context);
      refusal = await connection.send({
        message,
        text,
        sessionId: route.sessionId,
        signal: request.signal,
        ...(rawId === undefined ? {} : { rawId }),
      });
    }
    return refusal ? refusalResponse(refusal) : emptyResponse(202);
  } catch (error) {
    return backendFailure(context, error);
  }
}

async function initialize(
  context: ServerContext,
  request: Request,
  connector: AgentConnector,
  message: Record<string, unknown>,
  text: string,
  remoteAddress: string | undefined,
  rawId: string | undefined,
  credential: string | undefined,
): Promise<Response> {
  if (message.id === null) return textResponse(400, "Bad Request: initialize must have an id (not null)");
  try {
    const answer = await context.backend.initialize({
      connector,
      message,
      text,
      signal: request.signal,
      ...(rawId === undefined ? {} : { rawId }),
      ...(remoteAddress === undefined ? {} : { remoteAddress }),
      ...(credential === undefined ? {} : { credential }),
    });
    return jsonTextResponse(200, answer.text, { [HEADER_CONNECTION_ID]: answer.connectionId });
  } catch (error) {
    if (error instanceof ServerBackendError) return backendFailure(context, error);
    const failure =
      error instanceof InitializeFailure ? error : new InitializeFailure(500, errorText(error), { cause: error });
    context.logger.warn("a remote connection failed to initialize", {
      status: failure.status,
      reason: failure.message,
    });
    return jsonTextResponse(
      failure.status,
      errorAnswerText(message.id, rawId, {
        code: -32603,
        message: initializeFailedText(failure),
        data: failure.message,
      }),
    );
  }
}

/**
 * A GET: an SSE stream, connection-scoped or (with `Acp-Session-Id`) session-scoped; with `Last-Event-ID`, resumed
 * right after that event.
 */
export async function handleGet(context: ServerContext, request: Request, credential?: string): Promise<Response> {
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
  try {
    const connection = await context.backend.connection(connectionId);
    if (!connection) return unknownConnection();
    if (!sameCredential(connection, credential)) return otherCredential();
    const sessionId = request.headers.get(HEADER_SESSION_ID) || undefined;
    if (sessionId !== undefined && sessionId.length > context.limits.maxIdLength) return sessionIdTooLong(context);
    const cursor = request.headers.get("last-event-id") || undefined;
    const opened = await connection.openStream({ sessionId, cursor });
    if (!("take" in opened)) return refusalResponse(opened);
    if (request.signal.aborted) {
      opened.release();
      return textResponse(499, "Client Closed Request");
    }
    const body = sseBody(opened, { keepAliveMs: context.limits.keepAliveMs, onClose: () => {} });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  } catch (error) {
    return backendFailure(context, error);
  }
}

/** A DELETE: ends the connection and stops its agent, wherever it runs. */
export async function handleDelete(context: ServerContext, request: Request, credential?: string): Promise<Response> {
  const connectionId = request.headers.get(HEADER_CONNECTION_ID);
  if (!connectionId) return textResponse(400, "Bad Request: missing Acp-Connection-Id (the connection to end)");
  try {
    const connection = await context.backend.connection(connectionId);
    if (!connection) return unknownConnection();
    if (!sameCredential(connection, credential)) return otherCredential();
    if (!(await context.backend.closeConnection(connectionId, { reason: "deleted" }))) return unknownConnection();
    return emptyResponse(202);
  } catch (error) {
    return backendFailure(context, error);
  }
}

/**
 * Whether a request may use `connection`: it presents the credential the connection was opened with (a connection
 * opened without one, or by a backend that keeps none, takes any request the server allowed).
 */
function sameCredential(connection: BackendConnection, credential: string | undefined): boolean {
  return connection.credential === undefined || connection.credential === credential;
}

function otherCredential(): Response {
  return textResponse(
    403,
    "Forbidden: this connection was opened with another credential, and only that one may use it; present the token " +
      "it was opened with, or POST initialize to open a connection of your own",
  );
}

function refusalResponse(refusal: Refusal): Response {
  return textResponse(refusal.status, refusal.message, refusal.headers);
}

/** A backend call failed: its own status when it said one, else 500 (logged). */
function backendFailure(context: ServerContext, error: unknown): Response {
  if (error instanceof ServerBackendError) {
    const headers = error.headers === undefined ? undefined : { ...error.headers };
    return error.code === undefined
      ? textResponse(error.status, error.message, headers)
      : jsonResponse(error.status, { code: error.code, message: error.message }, headers);
  }
  context.logger.error("the server's backend failed", { error: errorText(error) });
  return textResponse(500, `Internal Server Error: the server's backend failed (${errorText(error)}); retry later`);
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
