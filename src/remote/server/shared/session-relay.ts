/**
 * Shared sessions across the nodes of a cluster: what a backend gives the hub (`SessionRelay`: find the node that
 * runs a session, carry messages between nodes, share the listing and the share tokens) and what the hub's remote
 * half keeps (`CrossNode`).
 *
 * The node that runs a session's agent owns its `SharedSession`. A client on another node attaches through its own
 * node: that node finds the owner (`locate`) and relays the attach and each of the participant's later messages
 * (calls, answers to the session's requests, its going away) to it. On the owner the participant is a
 * `RemoteClient`, a `ClientEnd` whose deliveries are relayed back to the participant's node, which hands them to the
 * participant's connection (its streams, or its socket). Relayed messages reach each node in the order they were
 * sent to it. The one-node path never comes here.
 */
import type { Logger } from "../../../jsonrpc/logger.js";
import { sessionIdOfParams } from "../../http-protocol.js";
import { notFound } from "./hub-support.js";
import { OwnerWaits } from "./owner-waits.js";
import type { ClientEnd } from "./participant.js";
import type { RelayMessage, RemoteClientInfo, SessionRelay } from "./relay-protocol.js";
import { errorResponseText, ExactId, notificationText, SESSION_ENDED } from "./share-protocol.js";

/** The owner of an attachment whose session's node stopped, until another node takes the session over. */
export const ORPHANED = "";

export type {
  AttachmentRecord,
  RelayEndpoint,
  RelayMessage,
  RemoteClientInfo,
  RestoredSession,
  SessionRelay,
} from "./relay-protocol.js";

/** A participant on another node, as the session's owner sees it: deliveries are relayed to its node. */
export class RemoteClient implements ClientEnd {
  gone = false;

  constructor(
    readonly info: RemoteClientInfo,
    private readonly relay: SessionRelay,
  ) {}

  get id(): string {
    return this.info.id;
  }

  get transport(): "http" | "websocket" {
    return this.info.transport;
  }

  get clientInfo(): { name?: string; version?: string } | undefined {
    return this.info.clientInfo;
  }

  get sharingAware(): boolean {
    return this.info.sharingAware;
  }

  get shareGrant(): string | undefined {
    return this.info.shareGrant;
  }

  deliverToClient(text: string, sessionId: string | undefined): boolean {
    if (this.gone) return false;
    this.relay.send(this.info.node, {
      kind: "deliver",
      to: this.info.id,
      ...(sessionId === undefined ? {} : { sessionId }),
      text,
    });
    return true;
  }
}

/** A message as it travels: an exact id (beyond 2^53) goes as its number and its text. */
export function relayedCall(
  from: RemoteClientInfo,
  message: Record<string, unknown>,
  chars: number,
): RelayMessage & { kind: "call" } {
  const exact = message.id instanceof ExactId ? message.id : undefined;
  return exact === undefined
    ? { kind: "call", from, message, chars }
    : { kind: "call", from, message: { ...message, id: exact.value }, chars, rawId: exact.raw };
}

/** The message of a relayed call as the hub takes it (its exact id restored). */
export function callMessage(call: RelayMessage & { kind: "call" }): Record<string, unknown> {
  const { message, rawId } = call;
  return rawId !== undefined && typeof message.id === "number"
    ? { ...message, id: new ExactId(rawId, message.id) }
    : message;
}

/** Where the remote half of a hub keeps things: both sides of every cross-node attachment. */
export class CrossNode {
  /** On the owner: the participants on other nodes, by node and connection id. */
  readonly #remote = new Map<string, RemoteClient>();
  /**
   * On a participant's node: its local connections attached to sessions elsewhere, by session, with their owner
   * (`ORPHANED` while the owner stopped and no node took the session over yet).
   */
  readonly #attached = new Map<ClientEnd, Map<string, string>>();
  readonly #locals = new Map<string, ClientEnd>();
  /** On a participant's node: what each client waits for from the owners (its requests, their requests to it). */
  readonly #waits = new OwnerWaits();
  /** On a participant's node: orphaned attachments (client id, session id) and since when. */
  readonly #orphaned = new Map<string, { client: ClientEnd; sessionId: string; since: number }>();
  /** Share grants of connections held by other nodes (a share-token request may reach any node). */
  readonly #grants = new Map<string, string>();
  /** Share tokens issued on other nodes, as last checked in the shared state. */
  readonly #learned = new Map<string, string>();

  constructor(readonly relay: SessionRelay) {}

  /** `session/attach` (a request) to a session this node does not run: found in the cluster, relayed to its node. */
  attachElsewhere(connection: ClientEnd, message: Record<string, unknown>, chars: number): true {
    const sessionId = sessionIdOfParams(message.params)!;
    this.relay.locate(sessionId).then(
      (node) => {
        if (node === undefined) return void notFound(connection, message, sessionId);
        this.attached(connection, sessionId, node);
        this.forward(connection, sessionId, node, message, chars);
      },
      (error: unknown) =>
        connection.deliverToClient(
          errorResponseText(
            message.id,
            -32603,
            `Internal error: the cluster's state could not be read to find session ${sessionId} ` +
              `(${error instanceof Error ? error.message : String(error)}); retry shortly`,
          ),
          sessionId,
        ),
    );
    return true;
  }

  /** Asks `node`, which runs `sessionId`, to take `client` back (its own node stopped; see `rejoin.ts`). */
  rejoinThrough(client: ClientEnd, sessionId: string, node: string, afterSeq: number): void {
    this.attached(client, sessionId, node);
    this.relay.send(node, { kind: "rejoin", from: this.describe(client), sessionId, afterSeq });
  }

  /** The share grant of a connection of another node, as read (`learnGrant`); grants never change. */
  learnedGrant(connectionId: string): string | undefined {
    return this.#grants.get(connectionId);
  }

  /** Reads the share grant of a connection this node does not hold (a share-token request names it). */
  async learnGrant(connectionId: string): Promise<void> {
    if (this.#grants.has(connectionId)) return;
    const grant = await this.relay.connectionGrant(connectionId);
    if (grant === undefined) return;
    if (this.#grants.size >= 10_000) this.#grants.clear();
    this.#grants.set(connectionId, grant);
  }

  /** The session of a share token issued on another node, as last checked (`learnToken`). */
  learned(token: string): string | undefined {
    return this.#learned.get(token);
  }

  /** Checks a share token in the shared state (each request that presents one here: it may have been revoked). */
  learnToken(token: string, logger: Logger): Promise<void> | undefined {
    if (!token.startsWith("acpshare_")) return undefined;
    return this.relay.tokenSession(token).then(
      (sessionId) => void (sessionId === undefined ? this.#learned.delete(token) : this.#learned.set(token, sessionId)),
      (error: unknown) => {
        this.#learned.delete(token);
        logger.warn("shared sessions: a share token could not be checked in the cluster's state", {
          error: error instanceof Error ? error.message : String(error),
        });
      },
    );
  }

  // The participant's node.

  /** How `client` is described to the session's owner. */
  describe(client: ClientEnd): RemoteClientInfo {
    return {
      node: this.relay.nodeId,
      id: client.id,
      transport: client.transport,
      ...(client.clientInfo === undefined ? {} : { clientInfo: client.clientInfo }),
      sharingAware: client.sharingAware,
      ...(client.shareGrant === undefined ? {} : { shareGrant: client.shareGrant }),
    };
  }

  /** `client` is (being) attached to `sessionId`, run by `node`. */
  attached(client: ClientEnd, sessionId: string, node: string): void {
    let sessions = this.#attached.get(client);
    if (sessions === undefined) this.#attached.set(client, (sessions = new Map()));
    sessions.set(sessionId, node);
    this.#locals.set(client.id, client);
  }

  /** The node that runs `sessionId` for `client` (`ORPHANED`: none now), when `client` is attached to it there. */
  ownerOf(client: ClientEnd, sessionId: string): string | undefined {
    return this.#attached.get(client)?.get(sessionId);
  }

  /** Relays a message of `client` about `sessionId` to its owner `node` (a request is remembered until answered). */
  forward(client: ClientEnd, sessionId: string, node: string, message: Record<string, unknown>, chars: number): void {
    this.#waits.relayed(client, sessionId, message);
    this.relay.send(node, relayedCall(this.describe(client), message, chars));
  }

  /** A message of `client` about `sessionId` while its node stopped and no node took it over yet. */
  orphanCall(client: ClientEnd, sessionId: string, message: Record<string, unknown>): true {
    if (!("id" in message)) return true;
    if (message.method === "session/detach") {
      this.#leaveLocal(client, sessionId);
      client.deliverToClient(
        JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { sessionId, status: "detached" } }),
        sessionId,
      );
      return true;
    }
    const reason =
      `Internal error: the node that ran session ${sessionId} stopped and another node is taking the session over ` +
      `(this attachment goes on there); retry in a few seconds`;
    client.deliverToClient(errorResponseText(message.id, -32603, reason), sessionId);
    return true;
  }

  /** `client` answered a request a session of another node sent it (`id`). */
  answered(client: ClientEnd, id: unknown): void {
    this.#waits.answered(client, id);
  }

  /** Every node a local client is attached through, and every node with participants here. */
  peers(): Set<string> {
    const nodes = new Set<string>();
    for (const sessions of this.#attached.values())
      for (const node of sessions.values()) if (node !== ORPHANED) nodes.add(node);
    for (const client of this.#remote.values()) nodes.add(client.info.node);
    return nodes;
  }

  /**
   * `node` stopped. Each local client attached through it is answered for what it asked, its pending requests from
   * the session are withdrawn, and its attachment waits for the node that adopts the session (`moved`; see
   * `orphans`). Its participants here are returned.
   */
  nodeGone(node: string): RemoteClient[] {
    for (const [client, sessions] of [...this.#attached]) {
      for (const [sessionId, owner] of [...sessions]) {
        if (owner !== node) continue;
        this.#waits.settle(client, sessionId, node, "another node is taking the session over: send it again there");
        sessions.set(sessionId, ORPHANED);
        this.#orphaned.set(`${client.id}\u0000${sessionId}`, { client, sessionId, since: Date.now() });
      }
    }
    return [...this.#remote.values()].filter((client) => client.info.node === node);
  }

  /** The orphaned attachments (waiting for the node that takes their session over). */
  orphans(): { sessionId: string; since: number }[] {
    return [...this.#orphaned.values()].map(({ sessionId, since }) => ({ sessionId, since }));
  }

  /** Nobody takes those sessions over (in time): their clients are told the session ended for them. */
  orphansEnded(sessionIds: ReadonlySet<string>, reason: string): void {
    for (const { client, sessionId } of [...this.#orphaned.values()]) {
      if (!sessionIds.has(sessionId)) continue;
      client.deliverToClient(notificationText(SESSION_ENDED, { sessionId, reason }), sessionId);
      this.#leaveLocal(client, sessionId);
    }
  }

  /**
   * A node took a session over with a local client in it (`moved`): the client's messages about it go there now.
   * Whatever still waited on the old owner is settled. Unknown here (it left meanwhile): the new owner is told.
   */
  moved(message: RelayMessage & { kind: "moved" }): void {
    const client = this.#locals.get(message.to);
    const owner = client === undefined ? undefined : this.ownerOf(client, message.sessionId);
    if (client === undefined || owner === undefined) {
      const from = client === undefined ? this.#unknown(message.to) : this.describe(client);
      this.relay.send(message.node, { kind: "leave", from, sessionId: message.sessionId, reason: "left meanwhile" });
      return;
    }
    if (owner !== ORPHANED && owner !== message.node)
      this.#waits.settle(client, message.sessionId, owner, "the session goes on there: send it again");
    this.attached(client, message.sessionId, message.node);
    this.#orphaned.delete(`${client.id}\u0000${message.sessionId}`);
  }

  /**
   * This node took over a session that `connectionId`, a local connection, was attached to elsewhere: the local
   * client, its attachment no longer relayed (what waited on the old owner settled); undefined when it is not here.
   */
  adoptedHere(connectionId: string, sessionId: string): ClientEnd | undefined {
    const client = this.#locals.get(connectionId);
    const owner = client === undefined ? undefined : this.ownerOf(client, sessionId);
    if (client === undefined || owner === undefined) return undefined;
    if (owner !== ORPHANED) this.#waits.settle(client, sessionId, owner, "the session goes on here: send it again");
    this.#leaveLocal(client, sessionId);
    return client;
  }

  /** The nodes `client` is attached through (where its answers to session requests go). */
  ownersOf(client: ClientEnd): Set<string> {
    return new Set(this.#attached.get(client)?.values() ?? []);
  }

  /** `client`'s connection went away: each owner is told. */
  clientGone(client: ClientEnd, reason: string): void {
    const sessions = this.#attached.get(client);
    if (sessions === undefined) return;
    for (const sessionId of sessions.keys()) this.#orphaned.delete(`${client.id}\u0000${sessionId}`);
    this.#attached.delete(client);
    this.#locals.delete(client.id);
    this.#waits.forget(client);
    const from = this.describe(client);
    for (const node of new Set(sessions.values()))
      if (node !== ORPHANED) this.relay.send(node, { kind: "gone", from, reason });
  }

  /** A relayed delivery or departure for a local connection. */
  toLocal(message: RelayMessage & { kind: "deliver" | "left" }): void {
    const client = this.#locals.get(message.to);
    if (client === undefined) return;
    if (message.kind === "deliver") {
      // Updates are most of the traffic and neither answer nor ask anything: not parsed.
      if (!message.text.includes('"session/update"')) this.#waits.delivered(client, message.sessionId, message.text);
      client.deliverToClient(message.text, message.sessionId);
      return;
    }
    this.#leaveLocal(client, message.sessionId);
  }

  #leaveLocal(client: ClientEnd, sessionId: string): void {
    const sessions = this.#attached.get(client);
    sessions?.delete(sessionId);
    this.#orphaned.delete(`${client.id}\u0000${sessionId}`);
    this.#waits.forget(client, sessionId);
    if (sessions?.size === 0) {
      this.#attached.delete(client);
      this.#locals.delete(client.id);
      this.#waits.forget(client);
    }
  }

  #unknown(id: string): RemoteClientInfo {
    return { node: this.relay.nodeId, id, transport: "http", sharingAware: true };
  }

  // The owner.

  /** The owner's view of a participant on another node (one object per connection, while it lives). */
  remoteClient(info: RemoteClientInfo): RemoteClient {
    const key = `${info.node}\u0000${info.id}`;
    let client = this.#remote.get(key);
    if (client === undefined) this.#remote.set(key, (client = new RemoteClient(info, this.relay)));
    return client;
  }

  /** The owner's views of connection `id`, through whichever node (one, unless its node changed). */
  remoteClients(id: string): RemoteClient[] {
    return [...this.#remote.values()].filter((client) => client.info.id === id);
  }

  /** That participant's connection is gone: forgotten (it was told nothing more). */
  forget(client: RemoteClient): void {
    client.gone = true;
    this.#remote.delete(`${client.info.node}\u0000${client.info.id}`);
  }

  /** Tells a participant's node it is no longer attached to `sessionId`. */
  left(client: RemoteClient, sessionId: string): void {
    if (!client.gone) this.relay.send(client.info.node, { kind: "left", to: client.info.id, sessionId });
  }
}
