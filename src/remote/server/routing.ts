/**
 * The routing rules of the transport RFD, as pure functions: which session a client message belongs to (checked
 * against its `Acp-Session-Id` header), and on which stream the agent's answer to it travels.
 *
 * - `session/update`, agent->client requests and responses to session-scoped POSTs go on the session stream;
 * - responses to `session/new` and `session/load` (whose session the client may not have a stream for yet) and
 *   messages tied to no session go on the connection stream.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (Unified Endpoint Routing)
 */
import { isRecord } from "../../jsonrpc/messages.js";
import { METHODS, methodRequiresSessionHeader, sessionIdOfParams } from "../http-protocol.js";

/** A client message's session, or why its headers do not fit it. */
export type ClientRoute = { ok: true; sessionId: string | undefined } | { ok: false; reason: string };

/**
 * The session a client request or notification belongs to. A session-scoped method, or any message whose params
 * carry a `sessionId`, MUST come with `Acp-Session-Id`, and the two must agree (as the official SDK 2.4.0 checks).
 */
export function routeOfClientMessage(
  method: string,
  params: unknown,
  headerSessionId: string | undefined,
): ClientRoute {
  const paramsSessionId = sessionIdOfParams(params);
  if ((methodRequiresSessionHeader(method) || paramsSessionId !== undefined) && !headerSessionId) {
    return {
      ok: false,
      reason: `Missing Acp-Session-Id: a "${method}" POST must name its session in the Acp-Session-Id header`,
    };
  }
  if (headerSessionId && paramsSessionId !== undefined && headerSessionId !== paramsSessionId) {
    return {
      ok: false,
      reason: `Mismatched Acp-Session-Id: the header says "${headerSessionId}", the params say "${paramsSessionId}"`,
    };
  }
  return { ok: true, sessionId: headerSessionId || paramsSessionId };
}

/**
 * The stream the agent's response to a client request of `method` in `sessionId` travels on (undefined: the
 * connection's).
 */
export function responseStreamOf(method: string, sessionId: string | undefined): string | undefined {
  return method === METHODS.session_load ? undefined : sessionId;
}

/** The session of a message the agent sends on its own (a request or notification): its params' `sessionId`. */
export function sessionOfAgentMessage(message: Record<string, unknown>): string | undefined {
  return sessionIdOfParams(message.params);
}

/** What kind of JSON-RPC message an object is, by its members (the agent validates the details). */
export type MessageKind = "request" | "notification" | "response";

export function kindOf(message: Record<string, unknown>): MessageKind {
  if (typeof message.method === "string") return "id" in message ? "request" : "notification";
  return "response";
}

/** True for an `initialize` request (with an id), the only message a new connection starts with. */
export function isInitializeRequest(message: unknown): boolean {
  return isRecord(message) && message.method === METHODS.initialize && "id" in message;
}

/** The `sessionId` in a response's result, if any (`session/new`, `session/fork`). */
export function sessionIdOfResponse(message: Record<string, unknown>): string | undefined {
  return isRecord(message.result) && typeof message.result.sessionId === "string"
    ? message.result.sessionId
    : undefined;
}
