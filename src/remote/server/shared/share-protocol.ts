/**
 * The wire vocabulary of shared sessions (several clients on one live session), after the RFD "Multi-Client Session
 * Attach" (agent-client-protocol pull request #533, not merged: the unstable surface): `session/attach` and
 * `session/detach`, the `historyPolicy` values, the proxy's `session/update` variants (`prompt_received`,
 * `turn_complete`, `permission_resolved`, `client_disconnected`, discriminated by `sessionUpdate` as every ACP
 * update is; the RFD's examples write `type`), and acpkit's own additions, `_`-prefixed or under `_meta.acpkit`.
 *
 * Roles: the RFD's revisions 1-4 had `controller` and `observer` (`params.role`); its last revision dropped them.
 * acpkit enforces them: a client that asks for no role is a controller; an observer asks with `params.role:
 * "observer"` (the revisions' field) or `params._meta.acpkit.role: "observer"`.
 *
 * Error codes: -32001 (session not found) and -32003 (not supported) are the RFD's; the RFD's -32002 ("not
 * authorised") collides with ACP's own -32002 ("resource not found"), so acpkit refuses with -32011 instead.
 *
 * Spec: https://github.com/agentclientprotocol/agent-client-protocol/pull/533
 */
import { isRecord } from "../../../jsonrpc/messages.js";
import { serializeMessage } from "../../../transports/serialize.js";

export const SESSION_ATTACH = "session/attach";
export const SESSION_DETACH = "session/detach";
/** acpkit: a controller asks for a read-only share token of a session (result `{ token }`). */
export const SESSION_SHARE = "_acpkit/session/share";
/** acpkit: the session's participants changed (a snapshot: `{ sessionId, participants }`). */
export const PARTICIPANTS_CHANGED = "_acpkit/session/participants";
/** acpkit: the session's prompt queue changed (a snapshot: `{ sessionId, running, queued }`). */
export const QUEUE_CHANGED = "_acpkit/session/queue";
/** Notification: the session ended for this client (`reason` says why and what to do). */
export const SESSION_ENDED = "_acpkit/session/ended";
/**
 * acpkit: a notification of this client was refused (`{ sessionId, method, error }`), or a response (`{ sessionId,
 * method?, requestId, error }`: an observer's answer to a permission request); neither has a reply.
 */
export const NOTIFICATION_REFUSED = "_acpkit/session/refused";
/**
 * acpkit: a permission request of the agent is waiting for a controller's answer (to observers, read-only:
 * `{ sessionId, permissionId, toolCall, options, askedAt }`). `permissionId` is not a request id: nothing answers it;
 * the `permission_resolved` update that settles the request carries it in `_meta.acpkit.permissionId`.
 */
export const PERMISSION_PENDING = "_acpkit/session/permission_pending";

export const ERROR_SESSION_NOT_FOUND = -32001;
export const ERROR_NOT_SUPPORTED = -32003;
/** Refused for the client's role or credentials (an observer's prompt, a share token asking for control). */
export const ERROR_NOT_ALLOWED = -32011;
export const ERROR_ALREADY_ATTACHED = -32012;
/** `session/load` or `session/resume` of a session that is live on this server: attach to it instead. */
export const ERROR_SESSION_LIVE = -32013;

export type ParticipantRole = "controller" | "observer";
export type HistoryPolicy = "full" | "pending_only" | "none";
const POLICIES: readonly string[] = ["full", "pending_only", "none"];

/** Who a participant is, as others see it (the RFD's `connectedClients[]`, plus acpkit's fields). */
export interface ParticipantInfo {
  readonly clientId: string;
  readonly name?: string;
  readonly version?: string;
  readonly role: ParticipantRole;
  readonly transport: "http" | "websocket";
  /** Milliseconds since the epoch. */
  readonly attachedAt: number;
}

/** A parsed `session/attach` request, or why it is malformed. */
export type AttachRequest =
  | {
      ok: true;
      sessionId: string;
      role: ParticipantRole;
      historyPolicy: HistoryPolicy;
      /** The policy asked for when it was not one acpkit knows (`after_message`): replayed as `full`. */
      fellBack: boolean;
      clientId: string | undefined;
      clientInfo: { name?: string; version?: string } | undefined;
    }
  | { ok: false; message: string };

/** Reads `session/attach` params leniently (unknown fields ignored), strictly where a mistake would mislead. */
export function parseAttach(params: unknown): AttachRequest {
  if (!isRecord(params) || typeof params.sessionId !== "string" || params.sessionId === "")
    return {
      ok: false,
      message: "session/attach needs params.sessionId: the id of a live session (acp sessions <url>)",
    };
  const meta = isRecord(params._meta) && isRecord(params._meta.acpkit) ? params._meta.acpkit : {};
  const role = params.role ?? meta.role ?? "controller";
  if (role !== "controller" && role !== "observer")
    return { ok: false, message: `unknown role ${JSON.stringify(role)}: ask for "controller" or "observer"` };
  const policy = params.historyPolicy ?? "full";
  if (typeof policy !== "string")
    return { ok: false, message: 'historyPolicy is a string: "full", "pending_only" or "none"' };
  const fellBack = !POLICIES.includes(policy);
  if (fellBack && policy !== "after_message")
    return { ok: false, message: `unknown historyPolicy "${policy}": use "full", "pending_only" or "none"` };
  const info = isRecord(params.clientInfo) ? params.clientInfo : undefined;
  return {
    ok: true,
    sessionId: params.sessionId,
    role,
    historyPolicy: fellBack ? "full" : (policy as HistoryPolicy),
    fellBack,
    clientId: typeof params.clientId === "string" && params.clientId !== "" ? params.clientId : undefined,
    clientInfo:
      info === undefined
        ? undefined
        : {
            ...(typeof info.name === "string" ? { name: info.name } : {}),
            ...(typeof info.version === "string" ? { version: info.version } : {}),
          },
  };
}

/**
 * A client's request id beyond what a JS number holds (2^53): kept as the exact text the client sent, so the
 * answer carries it back unchanged (as the server does for the agent's own answers).
 */
export class ExactId {
  constructor(
    readonly raw: string,
    readonly value: number,
  ) {}
}

/** The text of an answer to request `id` (an `ExactId` is written as its exact text). */
export function answerText(id: unknown, body: { result: unknown } | { error: unknown }): string {
  if (id instanceof ExactId)
    return serializeMessage({ jsonrpc: "2.0", id: id.value, ...body }, Number.MAX_SAFE_INTEGER, id.raw);
  return JSON.stringify({ jsonrpc: "2.0", id, ...body });
}

/** A JSON-RPC error response's text. */
export function errorResponseText(id: unknown, code: number, message: string, data?: unknown): string {
  return answerText(id, { error: data === undefined ? { code, message } : { code, message, data } });
}

/** A JSON-RPC result response's text. */
export function resultResponseText(id: unknown, result: unknown): string {
  return answerText(id, { result });
}

/** A notification's text. */
export function notificationText(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}
