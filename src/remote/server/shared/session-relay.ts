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
import { idKey, sessionIdOfParams } from "../../http-protocol.js";
import { notFound, type SharedSessionSummary } from "./hub-support.js";
import type { ClientEnd } from "./participant.js";
import { errorResponseText, ExactId, notificationText } from "./share-protocol.js";

/** A participant's connection as its own node describes it to the session's owner. */
export interface RemoteClientInfo {
  /** The node that holds the connection (where deliveries go). */
  readonly node: string;
  readonly id: string;
  readonly transport: "http" | "websocket";
  readonly clientInfo?: { readonly name?: string; readonly version?: string };
  readonly sharingAware: boolean;
  readonly shareGrant?: string;
}

/** A message between two nodes' hubs. */
export type RelayMessage =
  /** A participant's request or notification about a session of the owner (`session/attach` included). */
  | {
      readonly kind: "call";
      readonly from: RemoteClientInfo;
      readonly message: Record<string, unknown>;
      readonly chars: number;
      readonly rawId?: string;
    }
  /** A participant's answer to a request of the session (a permission, an fs or terminal request). */
  | { readonly kind: "response"; readonly from: RemoteClientInfo; readonly message: Record<string, unknown> }
  /** The participant's connection went away. */
  | { readonly kind: "gone"; readonly from: RemoteClientInfo; readonly reason: string }
  /** For the participant: a message's text on `sessionId`'s stream. */
  | { readonly kind: "deliver"; readonly to: string; readonly sessionId?: string; readonly text: string }
  /** For the participant's node: the connection is no longer attached to `sessionId` (detached, refused, ended). */
  | { readonly kind: "left"; readonly to: string; readonly sessionId: string };

/** What a cluster backend gives a node's hub. */
export interface SessionRelay {
  /** This node's id (the hub's request ids carry it, so they are unique across the cluster). */
  readonly nodeId: string;
  /** The node whose hub runs `sessionId`, when another node does (undefined: no live session by that id elsewhere). */
  locate(sessionId: string): Promise<string | undefined>;
  /** Sends `message` to `node`'s hub; messages to one node arrive in the order sent. Never throws. */
  send(node: string, message: RelayMessage): void;
  /** The hub's sessions or participants changed: the listing the other nodes read is refreshed soon. */
  changed(): void;
  /** The live sessions run by the other nodes. */
  listElsewhere(): Promise<SharedSessionSummary[]>;
  /** A share token was issued here: other nodes accept it once this resolves. */
  tokenIssued(token: string, sessionId: string, hostConnectionId: string): Promise<void>;
  /** The session a share token issued on another node lets its bearer observe, if it is live. */
  tokenSession(token: string): Promise<string | undefined>;
  /** The session a connection opened with a share token (on any node) may observe; undefined: none, or unknown. */
  connectionGrant(connectionId: string): Promise<string | undefined>;
  /** A session of this node ended: its share tokens and its listing go. */
  sessionClosed(sessionId: string): void;
}

/** What the hub is to its backend's relay. */
export interface RelayEndpoint {
  /** A message another node relayed to this one. */
  relayed(message: RelayMessage): void;
  /** This node's live sessions (what the other nodes list). */
  list(): SharedSessionSummary[];
  /** The other nodes this one has attachments with (either way): their liveness is checked at each heartbeat. */
  peers(): Set<string>;
  /** Those nodes stopped (no heartbeat for a lease): their attachments end, nothing waits for them. */
  peersGone(nodes: readonly string[]): void;
}

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
  /** On a participant's node: its local connections attached to sessions elsewhere, by session, with their owner. */
  readonly #attached = new Map<ClientEnd, Map<string, string>>();
  readonly #locals = new Map<string, ClientEnd>();
  /** On a participant's node: the requests relayed for each client, not answered yet (by id key). */
  readonly #pending = new Map<ClientEnd, Map<string, { sessionId: string; id: unknown }>>();
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

  /** The node that runs `sessionId` for `client`, when `client` is attached to it there. */
  ownerOf(client: ClientEnd, sessionId: string): string | undefined {
    return this.#attached.get(client)?.get(sessionId);
  }

  /** Relays a message of `client` about `sessionId` to its owner `node` (a request is remembered until answered). */
  forward(client: ClientEnd, sessionId: string, node: string, message: Record<string, unknown>, chars: number): void {
    const key = "id" in message && "method" in message ? idKey(message.id) : undefined;
    if (key !== undefined) {
      let pending = this.#pending.get(client);
      if (pending === undefined) this.#pending.set(client, (pending = new Map()));
      pending.set(key, { sessionId, id: message.id });
    }
    this.relay.send(node, relayedCall(this.describe(client), message, chars));
  }

  /** Every node a local client is attached through, and every node with participants here. */
  peers(): Set<string> {
    const nodes = new Set<string>();
    for (const sessions of this.#attached.values()) for (const node of sessions.values()) nodes.add(node);
    for (const client of this.#remote.values()) nodes.add(client.info.node);
    return nodes;
  }

  /**
   * `node` stopped. Each local client attached through it is answered for what it asked and told the session ended
   * for it (it may attach again: the session may be adopted by another node). Its participants here are returned.
   */
  nodeGone(node: string): RemoteClient[] {
    for (const [client, sessions] of [...this.#attached]) {
      for (const [sessionId, owner] of [...sessions]) {
        if (owner !== node) continue;
        const reason = `the node that ran session ${sessionId} (${node}) stopped; attach again to follow it`;
        for (const [key, pending] of [...(this.#pending.get(client) ?? [])]) {
          if (pending.sessionId !== sessionId) continue;
          this.#pending.get(client)!.delete(key);
          client.deliverToClient(errorResponseText(pending.id, -32603, `Internal error: ${reason}`), sessionId);
        }
        client.deliverToClient(notificationText("_acpkit/session/ended", { sessionId, reason }), sessionId);
        this.toLocal({ kind: "left", to: client.id, sessionId });
      }
    }
    return [...this.#remote.values()].filter((client) => client.info.node === node);
  }

  /** The nodes `client` is attached through (where its answers to session requests go). */
  ownersOf(client: ClientEnd): Set<string> {
    return new Set(this.#attached.get(client)?.values() ?? []);
  }

  /** `client`'s connection went away: each owner is told. */
  clientGone(client: ClientEnd, reason: string): void {
    const sessions = this.#attached.get(client);
    if (sessions === undefined) return;
    this.#attached.delete(client);
    this.#locals.delete(client.id);
    this.#pending.delete(client);
    const from = this.describe(client);
    for (const node of new Set(sessions.values())) this.relay.send(node, { kind: "gone", from, reason });
  }

  /** A relayed delivery or departure for a local connection. */
  toLocal(message: RelayMessage & { kind: "deliver" | "left" }): void {
    const client = this.#locals.get(message.to);
    if (client === undefined) return;
    if (message.kind === "deliver") {
      const pending = this.#pending.get(client);
      // An answer (not an update: those are most of the traffic) settles a relayed request.
      if (pending !== undefined && pending.size > 0 && !message.text.includes('"session/update"'))
        answered(pending, message.text);
      client.deliverToClient(message.text, message.sessionId);
      return;
    }
    const sessions = this.#attached.get(client);
    sessions?.delete(message.sessionId);
    for (const [key, pending] of [...(this.#pending.get(client) ?? [])])
      if (pending.sessionId === message.sessionId) this.#pending.get(client)!.delete(key);
    if (sessions?.size === 0) {
      this.#attached.delete(client);
      this.#locals.delete(client.id);
      this.#pending.delete(client);
    }
  }

  // The owner.

  /** The owner's view of a participant on another node (one object per connection, while it lives). */
  remoteClient(info: RemoteClientInfo): RemoteClient {
    const key = `${info.node}\u0000${info.id}`;
    let client = this.#remote.get(key);
    if (client === undefined) this.#remote.set(key, (client = new RemoteClient(info, this.relay)));
    return client;
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

/** Forgets the request a delivered answer settles, if the text is one. */
function answered(pending: Map<string, unknown>, text: string): void {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof message !== "object" || message === null || "method" in message || !("id" in message)) return;
  const key = idKey((message as { id: unknown }).id);
  if (key !== undefined) pending.delete(key);
}
