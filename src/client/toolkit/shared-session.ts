/**
 * Joining a shared session from a client (an `acp serve` with shared sessions, or any proxy of the RFD
 * "Multi-Client Session Attach"): `attachSession` / `detachSession` over any connection that can send a raw request,
 * and `ParticipantsView`, which keeps who else is attached and the session's prompt queue from what the server
 * sends (`_acpkit/session/participants`, `_acpkit/session/queue`, `session/update` `client_disconnected`).
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

/** Who is attached to one session and what its prompt queue holds, kept from the server's notifications. */
export class ParticipantsView {
  participants: readonly SessionParticipant[] = [];
  running: { promptId: string; clientId: string } | null = null;
  queued: readonly { promptId: string; clientId: string }[] = [];
  readonly #listeners = new Set<() => void>();

  constructor(
    readonly sessionId: string,
    attached?: AttachSessionResult,
  ) {
    const meta = (attached?._meta?.acpkit ?? {}) as { participants?: SessionParticipant[]; queue?: ParticipantsView };
    if (meta.participants) this.participants = meta.participants;
    if (meta.queue) [this.running, this.queued] = [meta.queue.running, meta.queue.queued];
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
    else return false;
    for (const listener of this.#listeners) listener();
    return true;
  }

  /** Called after each change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
