/**
 * Parts of the hub: the options of shared sessions on a server, a live session as the listing shows it, and the
 * hub's own answers (an attach it refuses, session not found, a share token).
 */
import type { ClientEnd } from "./participant.js";
import type { QueueSnapshot } from "./prompt-queue.js";
import { sessionIdOfParams } from "../../http-protocol.js";
import {
  ERROR_NOT_ALLOWED,
  ERROR_SESSION_NOT_FOUND,
  errorResponseText,
  parseAttach,
  resultResponseText,
  type AttachRequest,
  type ParticipantInfo,
  type ParticipantRole,
} from "./share-protocol.js";
import type { SessionRelay } from "./session-relay.js";
import type { SharedSession } from "./shared-session.js";
import type { ShareTokens } from "./share-tokens.js";

/** How shared sessions behave on a server. */
export interface SharedSessionsOptions {
  /** UTF-16 units of `session/update` text kept per session for `historyPolicy: "full"`. Default 8 MiB. */
  readonly maxHistoryChars?: number;
  /**
   * Who keeps an agent alive once its own client is gone: `"controller"` (default: while one controller remains
   * attached to one of its sessions) or `"participant"` (observers too).
   */
  readonly keepAlive?: "controller" | "participant";
  /** How long an agent nobody keeps alive lingers (a client may reattach) before it is stopped. Default 0. */
  readonly lingerMs?: number;
}

/** A live session, as `acp sessions` lists it. */
export interface SharedSessionSummary {
  readonly sessionId: string;
  readonly hostConnectionId: string;
  /** Whether the client that opened the session is still connected. */
  readonly hostConnected: boolean;
  readonly createdAt: number;
  readonly turnRunning: boolean;
  readonly queue: QueueSnapshot;
  readonly pendingPermissions: number;
  readonly updates: number;
  readonly participants: readonly ParticipantInfo[];
  /** The node that runs the session (in a cluster). */
  readonly node?: string;
}

/** A live session as the listing shows it (`node`: the node that runs it, in a cluster). */
export function summaryOf(session: SharedSession, node: string | undefined): SharedSessionSummary {
  return {
    sessionId: session.sessionId,
    hostConnectionId: session.host.id,
    hostConnected: !session.host.clientGone,
    createdAt: session.createdAt,
    turnRunning: session.turnRunning,
    queue: session.queue,
    pendingPermissions: session.pendingPermissions,
    updates: session.history.lastSeq,
    participants: session.participants,
    ...(node === undefined ? {} : { node }),
  };
}

/** Why a connection opened with a share token (`grant`) may not attach as asked; undefined when it may. */
export function grantRefusal(
  grant: string | undefined,
  request: { sessionId: string; role: ParticipantRole },
): string | undefined {
  if (grant === undefined || (grant === request.sessionId && request.role === "observer")) return undefined;
  return grant !== request.sessionId
    ? `Not allowed: this connection's share token is for another session; it cannot attach to ${request.sessionId}`
    : `Not allowed: a share token lets a client observe only; attach with role "observer", or use the ` +
        `server's credentials to take part as a controller`;
}

/**
 * A `session/attach` the connection may make: its request and the live session. Undefined when it was answered here
 * instead (bad params, a session not live here, a share token that does not allow it) or needs no answer (sent as a
 * notification).
 */
export function admitAttach(
  connection: ClientEnd,
  message: Record<string, unknown>,
  sessions: ReadonlyMap<string, SharedSession>,
): { request: AttachRequest & { ok: true }; session: SharedSession } | undefined {
  const request = parseAttach(message.params);
  if (!("id" in message)) return undefined;
  if (!request.ok) {
    connection.deliverToClient(
      errorResponseText(message.id, -32602, `Invalid params: ${request.message}`),
      sessionIdOfParams(message.params),
    );
    return undefined;
  }
  const session = sessions.get(request.sessionId);
  if (session === undefined) return void notFound(connection, message, request.sessionId);
  const refused = grantRefusal(connection.shareGrant, request);
  if (refused === undefined) return { request, session };
  connection.deliverToClient(errorResponseText(message.id, ERROR_NOT_ALLOWED, refused), request.sessionId);
  return undefined;
}

/** Answers `message` (a request) with "session not found": true (it is taken). */
export function notFound(
  connection: ClientEnd,
  message: Record<string, unknown>,
  sessionId: string | undefined,
): boolean {
  if ("id" in message)
    connection.deliverToClient(
      errorResponseText(
        message.id,
        ERROR_SESSION_NOT_FOUND,
        `Session not found: ${sessionId ?? "(no sessionId)"} is not live on this server (acp sessions <url> lists ` +
          `those that are)`,
        { sessionId },
      ),
      sessionId,
    );
  return true;
}

/** `_acpkit/session/share`: a controller gets the session's read-only share token (in a cluster, once stored). */
export function shareSession(
  connection: ClientEnd,
  session: SharedSession,
  message: Record<string, unknown>,
  tokens: ShareTokens,
  relay: SessionRelay | undefined,
): boolean {
  if (!("id" in message)) return true;
  const participant = session.participantOf(connection);
  if (participant === undefined || !participant.isController || connection.shareGrant !== undefined) {
    connection.deliverToClient(
      errorResponseText(
        message.id,
        ERROR_NOT_ALLOWED,
        `Not allowed: only a controller attached to session ${session.sessionId} can share it`,
      ),
      session.sessionId,
    );
    return true;
  }
  const token = tokens.issue(session.sessionId);
  const answer = () =>
    connection.deliverToClient(
      resultResponseText(message.id, { sessionId: session.sessionId, token }),
      session.sessionId,
    );
  if (relay === undefined) answer();
  // In a cluster the token is answered once every node accepts it.
  else
    relay
      .tokenIssued(token, session.sessionId, session.host.id)
      .then(answer, (error: unknown) =>
        connection.deliverToClient(
          errorResponseText(
            message.id,
            -32603,
            `Internal error: the share token could not be stored in the cluster's state ` +
              `(${error instanceof Error ? error.message : String(error)}); retry shortly`,
          ),
          session.sessionId,
        ),
      );
  return true;
}
