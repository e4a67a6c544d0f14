/**
 * The wire vocabulary of ACP's remote transports (Streamable HTTP and WebSocket on one `/acp` endpoint), shared by
 * acpkit's remote clients and its server. Names and values follow the transport RFD; where the RFD leaves a choice
 * open, the choice that keeps the official SDK 2.4.0's experimental transports interoperable with ours is made here.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import { isRecord } from "../jsonrpc/messages.js";
import { AGENT_METHODS } from "../protocol/generated/methods.unstable.js";

/**
 * ACP's method names, for the remote layer: the unstable v1 table's, the widest (its names are those of the stable
 * table and of protocol v2 for the same methods).
 */
export const METHODS = AGENT_METHODS;

/**
 * `session/set_model`: in no current schema (it left the unstable one), and still scoped to its session by the
 * official SDK 2.4.0, whose clients send it.
 */
export const SESSION_SET_MODEL = "session/set_model";

/** Header carrying the transport connection's id: returned by `initialize` (or the 101), required afterwards. */
export const HEADER_CONNECTION_ID = "Acp-Connection-Id";
/** Header naming the session a POST or a session-scoped GET stream belongs to. */
export const HEADER_SESSION_ID = "Acp-Session-Id";
/**
 * The protocol version `initialize` agreed on, sent on every request after it: clients SHOULD include it (RFD, FAQ
 * "What about the `Acp-Protocol-Version` header?"); servers accept it.
 */
export const HEADER_PROTOCOL_VERSION = "Acp-Protocol-Version";
/** `Content-Type` of every POST body and of the `initialize` answer. */
export const JSON_MIME_TYPE = "application/json";
/** `Accept` value of a GET that opens an SSE stream, and that stream's `Content-Type`. */
export const EVENT_STREAM_MIME_TYPE = "text/event-stream";
/**
 * The type of the event a server sends last on an SSE stream it ends on purpose (the connection ended, the session's
 * stream ended, or another reader took the stream over): `event: end` and a blank line, no data. A stream that stops
 * without it was cut (the node serving it died, a proxy or the network dropped it), even when the HTTP response ended
 * cleanly (a balancer may end a response whose server went away as if it were complete): acpkit's client resumes such
 * a stream with `Last-Event-ID`. Having no data, the event is never dispatched by SSE clients that do not know it
 * (HTML standard, "dispatch the event": an event whose data is empty is dropped), so it changes nothing for them. The
 * RFD leaves the end of a stream unsaid; this is acpkit's choice.
 */
export const STREAM_END_EVENT = "end";
/** The endpoint path the RFD names. Servers and clients accept any path; this is the default. */
export const DEFAULT_ACP_PATH = "/acp";

/**
 * Client->agent methods whose POST carries `Acp-Session-Id` and whose response travels on that session's stream
 * (except `session/load`, whose response goes on the connection stream as the RFD's reconnect flow shows).
 * The same set as the official SDK 2.4.0, so its server accepts what our client sends and the reverse.
 */
export const SESSION_SCOPED_METHODS: ReadonlySet<string> = new Set([
  METHODS.session_cancel,
  METHODS.session_close,
  METHODS.session_delete,
  METHODS.session_fork,
  METHODS.session_load,
  METHODS.session_prompt,
  METHODS.session_resume,
  METHODS.session_set_config_option,
  METHODS.session_set_mode,
  SESSION_SET_MODEL,
]);

/** True when a POST of `method` must carry `Acp-Session-Id`. */
export function methodRequiresSessionHeader(method: string): boolean {
  return SESSION_SCOPED_METHODS.has(method);
}

/** The `sessionId` string of a message's params, if it has one. */
export function sessionIdOfParams(params: unknown): string | undefined {
  if (!isRecord(params)) return undefined;
  const sessionId = params.sessionId;
  return typeof sessionId === "string" ? sessionId : undefined;
}

/** The `sessionId` string of a response's result, if it has one (`session/new`, `session/fork`). */
export function sessionIdOfResult(result: unknown): string | undefined {
  return sessionIdOfParams(result);
}

/**
 * A map key for a JSON-RPC id that keeps `1` and `"1"` apart (they are different ids). `undefined` for values
 * that are not ids.
 */
export function idKey(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  if (id === null) return "null";
  return undefined;
}

/**
 * WebSocket subprotocol a client offers (and the server selects) for ACP. Offering it is optional for clients;
 * acpkit's server selects it whenever it was offered, so browsers that offered a bearer subprotocol accept the 101.
 */
export const WEBSOCKET_SUBPROTOCOL = "acp";

/**
 * Prefix of the subprotocol that carries a bearer token from clients that cannot set headers (browsers):
 * `acp.bearer.<base64url(token)>`, offered beside {@link WEBSOCKET_SUBPROTOCOL}. Servers never select it.
 */
export const BEARER_SUBPROTOCOL_PREFIX = "acp.bearer.";

/** The subprotocol that carries `token` (UTF-8, base64url without padding, so any token fits RFC 6455's token rule). */
export function bearerSubprotocol(token: string): string {
  const bytes = new TextEncoder().encode(token);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return BEARER_SUBPROTOCOL_PREFIX + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The token carried by a `Sec-WebSocket-Protocol` list, or `undefined` when none of its entries carries one. */
export function tokenFromSubprotocols(offered: readonly string[]): string | undefined {
  for (const entry of offered) {
    const protocol = entry.trim();
    if (!protocol.startsWith(BEARER_SUBPROTOCOL_PREFIX)) continue;
    const encoded = protocol.slice(BEARER_SUBPROTOCOL_PREFIX.length).replace(/-/g, "+").replace(/_/g, "/");
    if (!/^[A-Za-z0-9+/]*$/.test(encoded)) return undefined;
    try {
      const binary = atob(encoded + "=".repeat((4 - (encoded.length % 4)) % 4));
      const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
