/**
 * Joining a shared session from a client (an `acp serve` with shared sessions, or any proxy of the RFD
 * "Multi-Client Session Attach"): `attachSession` / `detachSession` over any connection that can send a raw request,
 * and `ParticipantsView`, which keeps who else is attached, the session's prompt queue and (for an observer) the
 * permission requests waiting for a controller's answer, from what the server sends (`_acpkit/session/participants`,
 * `_acpkit/session/queue`, `_acpkit/session/permission_pending`, `session/update` `client_disconnected` and
 * `permission_resolved`).
 *
 * Spec: https://github.com/agentclientprotocol/agent-client-protocol/pull/533
 */

/** Something that sends a raw JSON-RPC request (`ClientSideConnection.connection`, an `AcpConnection`). */
export interface RawRequester {
  request<T = unknown>(method: string, params?: unknown): Promise<T>;
}

/** A participant as the server describes it. */
export interface SessionParticipant {
  readonly clientId: string;
  readonly name?: string;
  readonly version?: string;
  readonly role: "controller" | "observer";
  readonly transport?: string;
  readonly attachedAt?: number;
}

/**
 * A permission request waiting for a controller's answer, as an observer sees it (read-only: `permissionId` is not
 * a request id, and the server refuses an observer's answer).
 */
export interface ObservedPermission {
  readonly permissionId: string;
  /** The tool call the agent asks about (`session/request_permission`'s `toolCall`). */
  readonly toolCall?: { readonly toolCallId?: string; readonly title?: string; readonly [key: string]: unknown };
  /** The options the controllers are offered. */
  readonly options?: readonly { readonly optionId: string; readonly name?: string; readonly kind?: string }[];
  /** When the agent asked (ISO 8601). */
  readonly askedAt?: string;
}

/** How a permission request was settled (`session/update` `permission_resolved`). */
export interface ResolvedPermission {
  readonly permissionId?: string;
  readonly toolCallId?: string;
  /** The option chosen; absent when the request was cancelled. */
  readonly chosenOptionId?: string;
  readonly outcome?: unknown;
  /** Who answered (`clientId: "agent"`: the agent withdrew it). */
  readonly resolvedBy?: { readonly clientId: string; readonly name?: string; readonly version?: string };
  /** When (ISO 8601). */
  readonly resolvedAt?: string;
}

/** Options of `attachSession`. */
export interface AttachSessionOptions {
  /** `observer` (read-only) or `controller` (default). */
  readonly role?: "controller" | "observer";
  /** What history to replay first, as `session/update`s: `full` (default), `pending_only`, `none`. */
  readonly historyPolicy?: "full" | "pending_only" | "none";
  readonly clientId?: string;
  readonly clientInfo?: { name: string; version: string };
}

/** What `session/attach` answers. */
export interface AttachSessionResult {
  readonly sessionId: string;
  readonly clientId: string;
  readonly role: "controller" | "observer";
  readonly historyPolicy: string;
  /** The others attached when this client joined. */
  readonly connectedClients: readonly SessionParticipant[];
  readonly _meta?: Record<string, unknown>;
}

/** Attaches to live session `sessionId`: its history (per `historyPolicy`) arrives as `session/update` first. */
export function attachSession(
  connection: RawRequester,
  sessionId: string,
  options: AttachSessionOptions = {},
): Promise<AttachSessionResult> {
  const role = options.role ?? "controller";
  return connection.request<AttachSessionResult>("session/attach", {
    sessionId,
    role,
    historyPolicy: options.historyPolicy ?? "full",
    ...(options.clientId === undefined ? {} : { clientId: options.clientId }),
    ...(options.clientInfo === undefined ? {} : { clientInfo: options.clientInfo }),
    _meta: { acpkit: { role } },
  });
}

/** Detaches from `sessionId`: the session goes on for the others. */
export function detachSession(
  connection: RawRequester,
  sessionId: string,
): Promise<{ sessionId: string; status: string }> {
  return connection.request("session/detach", { sessionId });
}

/**
 * Who is attached to one session, what its prompt queue holds and, for an observer, which permission requests wait
 * for a controller (and how the last one was settled), kept from the server's notifications.
 */
export class ParticipantsView {
  participants: readonly SessionParticipant[] = [];
  running: { promptId: string; clientId: string } | null = null;
  queued: readonly { promptId: string; clientId: string }[] = [];
  /** Permission requests waiting for a controller's answer (an observer's view; controllers are asked instead). */
  pendingPermissions: readonly ObservedPermission[] = [];
  /** The last permission request settled, and how. */
  lastResolved: ResolvedPermission | null = null;
  readonly #listeners = new Set<() => void>();

  constructor(
    readonly sessionId: string,
    attached?: AttachSessionResult,
  ) {
    const meta = (attached?._meta?.acpkit ?? {}) as {
      participants?: SessionParticipant[];
      queue?: ParticipantsView;
      pendingPermissions?: ObservedPermission[];
    };
    if (meta.participants) this.participants = meta.participants;
    if (meta.queue) [this.running, this.queued] = [meta.queue.running, meta.queue.queued];
    if (Array.isArray(meta.pendingPermissions)) this.pendingPermissions = meta.pendingPermissions;
  }

  /** Feed it every notification (method and params); true when it changed the view. */
  apply(method: string, params: unknown): boolean {
    const value = params as Record<string, any> | undefined;
    if (value?.sessionId !== this.sessionId) return false;
    if (method === "_acpkit/session/participants" && Array.isArray(value.participants))
      this.participants = value.participants;
    else if (method === "_acpkit/session/queue")
      [this.running, this.queued] = [value.running ?? null, value.queued ?? []];
    else if (method === "session/update" && value.update?.sessionUpdate === "client_disconnected")
      this.participants = this.participants.filter((who) => who.clientId !== value.update.client?.clientId);
    else if (method === "_acpkit/session/permission_pending" && typeof value.permissionId === "string") {
      // Sent after the attach answer too (which listed it already): kept once.
      if (this.pendingPermissions.some((pending) => pending.permissionId === value.permissionId)) return false;
      const { sessionId: _sessionId, ...pending } = value;
      this.pendingPermissions = [...this.pendingPermissions, pending as ObservedPermission];
    } else if (method === "session/update" && value.update?.sessionUpdate === "permission_resolved") {
      const update = value.update as Record<string, any>;
      const permissionId: unknown = update._meta?.acpkit?.permissionId;
      this.lastResolved = {
        ...(typeof permissionId === "string" ? { permissionId } : {}),
        ...(typeof update.toolCallId === "string" ? { toolCallId: update.toolCallId } : {}),
        ...(typeof update.chosenOptionId === "string" ? { chosenOptionId: update.chosenOptionId } : {}),
        ...(update.outcome === undefined ? {} : { outcome: update.outcome }),
        ...(update.resolvedBy === undefined ? {} : { resolvedBy: update.resolvedBy }),
        ...(typeof update._meta?.acpkit?.resolvedAt === "string" ? { resolvedAt: update._meta.acpkit.resolvedAt } : {}),
      };
      // Matched by permissionId; by tool call from a server that sends none.
      this.pendingPermissions = this.pendingPermissions.filter((pending) =>
        typeof permissionId === "string"
          ? pending.permissionId !== permissionId
          : pending.toolCall?.toolCallId !== update.toolCallId,
      );
    } else return false;
    for (const listener of this.#listeners) listener();
    return true;
  }

  /** Called after each change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
