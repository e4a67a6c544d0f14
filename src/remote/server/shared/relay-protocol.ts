/**
 * What travels between the nodes' hubs of a cluster for shared sessions, and what a backend gives a hub
 * (`SessionRelay`) and a hub is to it (`RelayEndpoint`). See session-relay.ts for how they are used.
 */
import type { SharedSessionSummary } from "./hub-support.js";
import type { AgentEnd, ClientEnd } from "./participant.js";
import type { HistoryPolicy, ParticipantRole } from "./share-protocol.js";

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
  /** The participant is no longer attached to `sessionId` (the owner learns it from a `moved` it could not take). */
  | { readonly kind: "leave"; readonly from: RemoteClientInfo; readonly sessionId: string; readonly reason: string }
  /**
   * The participant's connection was adopted by `from.node` (its own node stopped): it goes on in `sessionId` as it
   * was (role, client id), with the updates after `afterSeq` (the last numbered one its stream holds; -1: unknown,
   * none) replayed.
   */
  | { readonly kind: "rejoin"; readonly from: RemoteClientInfo; readonly sessionId: string; readonly afterSeq: number }
  /** For the participant's node: `node` took `sessionId` over (it adopted its agent's connection), with `to` in it. */
  | { readonly kind: "moved"; readonly to: string; readonly sessionId: string; readonly node: string }
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
  /**
   * The live node, other than this one, whose hub lists `sessionId` (it publishes a session once it opened or rebuilt
   * it): where a participant whose node stopped asks to be taken back.
   */
  locateListed(sessionId: string): Promise<string | undefined>;
  /** How long a participant whose node stopped waits for its session to be listed live somewhere (default 30 s). */
  readonly adoptionWaitMs?: number;
  /** Sends `message` to `node`'s hub; messages to one node arrive in the order sent. Never throws. */
  send(node: string, message: RelayMessage): void;
  /** The hub's sessions or participants changed: the listing the other nodes read is refreshed soon. */
  changed(): void;
  /**
   * Writes the listing now (after any write of it under way), for a relay whose other nodes find a session hosted
   * on a WebSocket only there: the hub holds the answer that gives the session's id to its client until this
   * resolves. Never rejects (a failure is logged, and the next change writes it again). Optional: without it, the
   * answer goes at once.
   */
  publishNow?(): Promise<void>;
  /** The live sessions run by the other nodes. */
  listElsewhere(): Promise<SharedSessionSummary[]>;
  /** A share token was issued here: other nodes accept it once this resolves. */
  tokenIssued(token: string, sessionId: string, hostConnectionId: string): Promise<void>;
  /** The session a share token issued on another node lets its bearer observe, if it is live. */
  tokenSession(token: string): Promise<string | undefined>;
  /** The session a connection opened with a share token (on any node) may observe; undefined: none, or unknown. */
  connectionGrant(connectionId: string): Promise<string | undefined>;
  /** A session of this node ended: its share tokens, its listing and its attachments' records go. */
  sessionClosed(sessionId: string, hostConnectionId: string): void;
  /** A client attached to a session of this node: recorded, for a node that adopts the session's connection. */
  attachmentSaved(record: AttachmentRecord): void;
  /** That client left the session: its record goes. */
  attachmentRemoved(sessionId: string, connectionId: string): void;
}

/** An attachment as the node running the session records it (a node adopting the session rebuilds it from this). */
export interface AttachmentRecord {
  readonly sessionId: string;
  readonly hostConnectionId: string;
  /** The participant's connection, and the node that holds it. */
  readonly client: RemoteClientInfo;
  readonly role: ParticipantRole;
  readonly historyPolicy: HistoryPolicy;
  readonly clientId: string;
  readonly name?: string;
  readonly version?: string;
  /** The last numbered update sent to it (at attach: the seq its stream continues after). */
  readonly lastSeq: number;
}

/** A session being rebuilt on the node that adopted its agent's connection. */
export interface RestoredSession {
  /** The last seq any participant may have been sent: the session's numbering continues after it. */
  readonly lastSeq: number;
  /** The attachments to rebuild (of participants whose own node lives). */
  readonly attachments: readonly AttachmentRecord[];
  /**
   * The participants whose own node stopped too: kept for a while, for their connections' adopters to ask them back
   * (`rejoin`).
   */
  readonly departed: readonly AttachmentRecord[];
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
  /** Attachments of local clients whose session's node stopped, waiting for another node to take the session over. */
  orphans(): { sessionId: string; since: number }[];
  /** The sessions of those that nobody will take over (or not in time): they end for their clients. */
  orphansEnded(sessionIds: ReadonlySet<string>, reason: string): void;
  /** This node adopted `host`'s connection and its agent reloaded `sessionId`: its attachments are rebuilt here. */
  restore(host: AgentEnd, sessionId: string, state: RestoredSession): void;
  /**
   * This node adopted `client`'s connection, which was attached to `sessionId` run by another node: the attachment
   * goes on through this node (`rejoin`), or the client is told it ended.
   */
  rejoin(client: ClientEnd, sessionId: string, afterSeq: number): void;
}
