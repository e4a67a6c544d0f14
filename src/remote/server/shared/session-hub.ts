/**
 * The multiplexer of one server (node): the live sessions of every agent it hosts, by id, and the client
 * connections attached to them. `ServerConnection` hands it each message first; what belongs to a shared session
 * (attach, detach, a participant's messages, the agent's messages about the session, answers to the server's own
 * request ids) it routes; the rest goes on as before. Every session an agent opens here (`session/new`,
 * `session/load`, `session/resume`, `session/fork`) is shareable: its client is its first controller.
 *
 * The agent lives while its own client is connected, or, once that client is gone, while a session of its keeps a
 * participant the `keepAlive` policy counts (controllers by default), plus `lingerMs`.
 *
 * Across a cluster, a backend gives the hub `ClientEnd`s and `AgentEnd`s that live on other nodes (see
 * docs/shared-sessions.md); nothing here assumes both ends are in this process.
 */
import { PROTOCOL_METHODS } from "../../../protocol/index.js";
import type { Logger } from "../../../jsonrpc/logger.js";
import { idKey, METHODS, sessionIdOfParams } from "../../http-protocol.js";
import { sessionIdOfResponse } from "../routing.js";
import type { AgentEnd, ClientEnd, Participant } from "./participant.js";
import { SharedSession } from "./shared-session.js";
import { ShareTokens } from "./share-tokens.js";
import { ExactId, SESSION_ATTACH, SESSION_DETACH, SESSION_SHARE } from "./share-protocol.js";
import { Rejoins } from "./rejoin.js";
import {
  admitAttach,
  notFound,
  shareSession,
  summaryOf,
  type SharedSessionsOptions,
  type SharedSessionSummary,
} from "./hub-support.js";
import {
  callMessage,
  CrossNode,
  ORPHANED,
  RemoteClient,
  type RelayEndpoint,
  type RelayMessage,
  type RestoredSession,
  type SessionRelay,
} from "./session-relay.js";
import { ClusterLoadCheck, refuseLiveSession } from "./load-check.js";
import { AgentLifetimes } from "./agent-lifetimes.js";
import { restoreAttachments, saveAttachment } from "./session-restore.js";

export type { SharedSessionsOptions, SharedSessionSummary } from "./hub-support.js";

/** A connection that is both ends (the server's own `ServerConnection`). */
export type ConnectionEnds = ClientEnd & AgentEnd;

const ID_PREFIX = "acpkit-mux-";

export class SessionHub implements RelayEndpoint {
  readonly tokens = new ShareTokens();
  /** Across a cluster (`connectRelay`): attachments to sessions of other nodes, and of their clients to ours. */
  #cross: CrossNode | undefined;
  /** In a cluster: loads of sessions not live here wait to learn whether another node runs them. */
  #loads: ClusterLoadCheck | undefined;
  #idPrefix = ID_PREFIX;

  readonly #sessions = new Map<string, SharedSession>();
  /** The server's request ids in use, and their session. */
  readonly #ids = new Map<string, SharedSession>();
  readonly #memberships = new Map<ClientEnd, Set<SharedSession>>();
  /** Participants lost with their nodes, and their coming back through other nodes. */
  readonly #rejoins: Rejoins = new Rejoins({
    log: (message, fields) => this.logger.info(message, fields),
    session: (sessionId) => this.#sessions.get(sessionId),
    sessionsOf: (client) => this.#memberships.get(client) ?? [],
    member: (client, session) => this.#member(client, session),
    gone: (client, reason) => this.relayed({ kind: "gone", from: client.info, reason }),
  });
  #nextId = 0;
  readonly #maxHistoryChars: number;
  readonly #lifetimes: AgentLifetimes;

  constructor(
    options: SharedSessionsOptions,
    readonly logger: Logger,
  ) {
    this.#maxHistoryChars = options.maxHistoryChars ?? 8 * 1024 * 1024;
    this.#lifetimes = new AgentLifetimes(options.keepAlive ?? "controller", options.lingerMs ?? 0, () =>
      this.#sessions.values(),
    );
  }

  readonly #services = {
    nextId: (session: SharedSession) => {
      const id = `${this.#idPrefix}${++this.#nextId}`;
      this.#ids.set(id, session);
      return id;
    },
    release: (id: string) => void this.#ids.delete(id),
    participantsChanged: (session: SharedSession) => {
      this.#cross?.relay.changed();
      this.#lifetimes.check(session.host);
    },
    participantLeft: (session: SharedSession, participant: Participant) => {
      if ((participant.client as unknown) !== session.host)
        this.#cross?.relay.attachmentRemoved(session.sessionId, participant.client.id);
    },
  };

  /** The hub's cross-node half, in a cluster. */
  get cross(): CrossNode | undefined {
    return this.#cross;
  }

  /** Makes this hub one of a cluster's (its backend's relay): clients attach to sessions of any node. */
  connectRelay(relay: SessionRelay): void {
    this.#cross = new CrossNode(relay);
    this.#loads = new ClusterLoadCheck(
      (sessionId) => relay.locate(sessionId),
      (connection, message, chars) => this.fromClient(connection, message, chars),
    );
    // Request ids unique across the cluster: an answer relayed to every node a client is attached through is taken
    // by the one that asked.
    this.#idPrefix = `${ID_PREFIX}${relay.nodeId}-`;
  }

  /** The live sessions, for `acp sessions`. */
  list(): SharedSessionSummary[] {
    return [...this.#sessions.values()].map((session) => summaryOf(session, this.#cross?.relay.nodeId));
  }

  /** The live sessions of every node (this one's only, outside a cluster). */
  async listAll(): Promise<SharedSessionSummary[]> {
    const local = this.list();
    return this.#cross === undefined ? local : [...local, ...(await this.#cross.relay.listElsewhere())];
  }

  /** The session a share token lets its bearer observe: issued here, or on another node (`learnToken`). */
  shareTokenSession(token: string): string | undefined {
    return this.tokens.sessionOf(token) ?? this.#cross?.learned(token);
  }

  /** In a cluster: checks a share token unknown here in the shared state (before `shareTokenSession` is asked). */
  learnToken(token: string): Promise<void> | undefined {
    if (this.tokens.sessionOf(token) !== undefined) return undefined;
    return this.#cross?.learnToken(token, this.logger);
  }

  peers(): Set<string> {
    return this.#cross?.peers() ?? new Set();
  }

  peersGone(nodes: readonly string[]): void {
    for (const node of nodes) for (const client of this.#cross?.nodeGone(node) ?? []) this.#rejoins.lost(client);
  }

  rejoin(client: ClientEnd, sessionId: string, afterSeq: number): void {
    if (this.#cross !== undefined) void this.#rejoins.rejoin(this.#cross, client, sessionId, afterSeq);
  }

  orphans(): { sessionId: string; since: number }[] {
    return this.#cross?.orphans() ?? [];
  }

  orphansEnded(sessionIds: ReadonlySet<string>, reason: string): void {
    this.#cross?.orphansEnded(sessionIds, reason);
  }

  restore(host: AgentEnd, sessionId: string, state: RestoredSession): void {
    const session = this.#sessions.get(sessionId);
    const cross = this.#cross;
    if (session === undefined || session.host !== host || cross === undefined) return;
    for (const client of restoreAttachments(cross, session, state)) this.#member(client, session);
    this.#rejoins.keepDeparted(sessionId, state.departed);
    cross.relay.changed();
    this.logger.info("a shared session's attachments were rebuilt here", { sessionId, lastSeq: state.lastSeq });
  }

  /** A message another node's hub relayed to this one. */
  relayed(message: RelayMessage): void {
    const cross = this.#cross;
    if (cross === undefined) return;
    if (message.kind === "deliver" || message.kind === "left") return cross.toLocal(message);
    if (message.kind === "moved") return cross.moved(message);
    if (message.kind === "rejoin") return this.#rejoins.rejoined(cross, message);
    const client = cross.remoteClient(message.from);
    if (message.kind === "gone") {
      this.clientGone(client, message.reason);
      return cross.forget(client);
    }
    if (message.kind === "leave") {
      const session = this.#sessions.get(message.sessionId);
      if (session !== undefined) this.#memberships.get(client)?.delete(session);
      session?.clientGone(client, message.reason);
      return this.#memberships.get(client)?.size ? undefined : cross.forget(client);
    }
    if (message.kind === "response") return void this.responseFromClient(client, message.message);
    const call = callMessage(message);
    const sessionId = sessionIdOfParams(call.params);
    if (this.#take(client, call, message.chars) === undefined && "id" in call) notFound(client, call, sessionId);
    const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    // The participant's node forwards its messages about the session here until it is told it left.
    if (sessionId !== undefined && session?.participantOf(client) === undefined) cross.left(client, sessionId);
  }

  /** Whether a session with this id is live here. */
  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  /**
   * A client request or notification on `connection`. True when the hub took it (answered, or routed to a shared
   * session); false: it goes to the connection's own agent as before.
   */
  fromClient(connection: ConnectionEnds, message: Record<string, unknown>, chars: number, rawId?: string): boolean {
    if (rawId !== undefined && typeof message.id === "number")
      message = { ...message, id: new ExactId(rawId, message.id) };
    if (this.#loads?.holds(connection, message, chars)) return true;
    const method = message.method as string;
    const sessionId = sessionIdOfParams(message.params);
    const cross = this.#cross;
    if (cross !== undefined && sessionId !== undefined && !this.#sessions.has(sessionId)) {
      const owner = cross.ownerOf(connection, sessionId);
      if (owner === ORPHANED) return cross.orphanCall(connection, sessionId, message);
      if (owner !== undefined) {
        cross.forward(connection, sessionId, owner, message, chars);
        return true;
      }
      if (method === SESSION_ATTACH && "id" in message) return cross.attachElsewhere(connection, message, chars);
    }
    const taken = this.#take(connection, message, chars);
    if (taken !== undefined) return taken;
    if (sessionId === undefined) return false;
    const session = this.#sessions.get(sessionId);
    if (method === METHODS.session_load || method === METHODS.session_resume) {
      if (session !== undefined && session.host !== connection) return (refuseLiveSession(connection, message), true);
      // In a cluster, another node may run it: the load waits for the cluster's answer (./load-check.ts).
      if (session === undefined && this.#loads !== undefined)
        return this.#loads.check(connection, sessionId, message, chars, () => this.#open(connection, sessionId));
      // The agent replays the session while loading it: the replay is the start of its history here.
      if (session === undefined) this.#open(connection, sessionId);
    }
    return false;
  }

  /**
   * A message of `client` about a shared session live here (attach, detach, share, a participant's call): true when
   * taken; undefined: not a shared session's message.
   */
  #take(client: ClientEnd, message: Record<string, unknown>, chars: number): boolean | undefined {
    const method = message.method as string;
    const sessionId = sessionIdOfParams(message.params);
    if (method === SESSION_ATTACH) return this.#attach(client, message);
    const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    if (method === SESSION_DETACH || method === SESSION_SHARE) {
      if (session === undefined) return notFound(client, message, sessionId);
      if (method === SESSION_DETACH) {
        if ("id" in message) session.detach(client, message.id);
        this.#memberships.get(client)?.delete(session);
        return true;
      }
      return shareSession(client, session, message, this.tokens, this.#cross?.relay);
    }
    const participant = session?.participantOf(client);
    if (session === undefined || participant === undefined) return undefined;
    session.fromClient(participant, message, chars);
    return true;
  }

  /** A client's response on `client`: true when it answers a request the hub sent (its id is the hub's). */
  responseFromClient(client: ClientEnd, message: Record<string, unknown>): boolean {
    const id = message.id;
    if (typeof id !== "string" || !id.startsWith(ID_PREFIX)) return false;
    const session = this.#ids.get(id);
    // An answer to a request already settled (a losing permission answer): dropped.
    if (session !== undefined) session.clientAnswered(client, id, message);
    else if (this.#cross !== undefined && !(client instanceof RemoteClient)) {
      // Asked by a session of another node (the id names it): the answer goes to the nodes the client is attached to.
      const cross = this.#cross;
      cross.answered(client, id);
      for (const node of cross.ownersOf(client))
        if (id.startsWith(`${ID_PREFIX}${node}-`))
          cross.relay.send(node, { kind: "response", from: cross.describe(client), message });
    }
    return true;
  }

  /** A request or notification of `host`'s agent: true when it belongs to a shared session. */
  fromAgent(host: AgentEnd, message: Record<string, unknown>, text: string): boolean {
    if (message.method === PROTOCOL_METHODS.cancel_request) {
      const params = message.params as { requestId?: unknown } | undefined;
      const key = idKey(params?.requestId);
      if (key === undefined) return false;
      for (const session of this.#sessions.values())
        if (session.host === host && session.agentCancelled(key)) return true;
      return false;
    }
    const sessionId = sessionIdOfParams(message.params);
    const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
    if (session === undefined || session.host !== host) return false;
    session.fromAgent(message, text);
    return true;
  }

  /** A response of `host`'s agent: true when it answers a request the hub sent it. */
  responseFromAgent(host: AgentEnd, message: Record<string, unknown>): boolean {
    const id = message.id;
    if (typeof id !== "string" || !id.startsWith(ID_PREFIX)) return false;
    const session = this.#ids.get(id);
    if (session !== undefined && session.host === host) session.agentAnswered(id, message);
    return true;
  }

  /**
   * The agent answered its own client's `method` (about `sessionId`): new sessions open, failed loads close. In a
   * cluster, a session opened on a WebSocket (a connection the cluster's tables do not hold, so only the listing says
   * where it runs) is listed at once: the answer waits for the returned promise, so that no client can know the
   * session's id before another node can find it.
   */
  agentAnswered(
    host: ConnectionEnds,
    method: string,
    sessionId: string | undefined,
    message: Record<string, unknown>,
  ): Promise<void> | undefined {
    let opened: string | undefined;
    if (method === METHODS.session_new || method === METHODS.session_fork) {
      const created = sessionIdOfResponse(message);
      if (created !== undefined && !this.#sessions.has(created)) this.#open(host, created);
      opened = created;
    } else if (method === METHODS.session_load || method === METHODS.session_resume) {
      const session = sessionId === undefined ? undefined : this.#sessions.get(sessionId);
      if ("error" in message) {
        if (session !== undefined && session.host === host && session.participants.length <= 1)
          this.#close(session, "it failed to load");
      } else opened = sessionId;
    }
    const session = opened === undefined ? undefined : this.#sessions.get(opened);
    if (session === undefined || session.host !== host || host.transport !== "websocket") return undefined;
    return this.#cross?.relay.publishNow?.();
  }

  /** Whether `host`'s agent must outlive its client (someone else still uses one of its sessions). */
  retainsAgent(host: AgentEnd): boolean {
    return this.#lifetimes.kept(host);
  }

  /** `client`'s connection went away (or lost its client): it leaves every session it is attached to. */
  clientGone(client: ClientEnd, reason: string): void {
    const sessions = this.#memberships.get(client);
    this.#memberships.delete(client);
    for (const session of sessions ?? []) session.clientGone(client, reason);
    if (!(client instanceof RemoteClient)) this.#cross?.clientGone(client, reason);
  }

  /** `host`'s agent ended: its sessions end, and everyone attached is told. */
  agentEnded(host: AgentEnd, reason: string): void {
    this.#lifetimes.ended(host);
    for (const session of [...this.#sessions.values()]) if (session.host === host) this.#close(session, reason);
  }

  #open(host: ConnectionEnds, sessionId: string): void {
    const session = new SharedSession(sessionId, host, this.#services, this.#maxHistoryChars);
    this.#sessions.set(sessionId, session);
    session.attachHost(host);
    this.#member(host, session);
    this.#cross?.relay.changed();
  }

  #close(session: SharedSession, reason: string): void {
    if (this.#sessions.get(session.sessionId) !== session) return;
    this.#sessions.delete(session.sessionId);
    this.tokens.revokeSession(session.sessionId);
    for (const [id, owner] of this.#ids) if (owner === session) this.#ids.delete(id);
    for (const sessions of this.#memberships.values()) sessions.delete(session);
    const remote = session.members.map((member) => member.client).filter((client) => client instanceof RemoteClient);
    session.end(reason);
    const cross = this.#cross;
    if (cross === undefined) return;
    for (const client of remote) cross.left(client, session.sessionId);
    cross.relay.sessionClosed(session.sessionId, session.host.id);
    cross.relay.changed();
  }

  #member(client: ClientEnd, session: SharedSession): void {
    let sessions = this.#memberships.get(client);
    if (sessions === undefined) this.#memberships.set(client, (sessions = new Set()));
    sessions.add(session);
  }

  #attach(connection: ClientEnd, message: Record<string, unknown>): boolean {
    const admitted = admitAttach(connection, message, this.#sessions);
    if (admitted === undefined) return true;
    const { request, session } = admitted;
    session.attach(connection, message.id, request);
    if (session.participantOf(connection) !== undefined) this.#member(connection, session);
    if (this.#cross !== undefined) saveAttachment(this.#cross, session, connection, request.historyPolicy);
    this.logger.info("a client attached to a shared session", {
      sessionId: request.sessionId,
      connectionId: connection.id,
      role: request.role,
      historyPolicy: request.historyPolicy,
    });
    return true;
  }
}
