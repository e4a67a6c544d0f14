/**
 * Shared sessions across a cluster, when a participant's own node dies (the session's node lives): its Streamable
 * HTTP connection is adopted by another node, which asks the session's node to take the participant back
 * (`rejoin`). The session's node keeps, for a while, what each participant it lost with a stopped node was (role,
 * client id) in `Departures`; a rejoin finds it there, and the participant goes on as it was, with the updates its
 * stream missed replayed (those after the last numbered one its stream holds). A rejoin that finds nothing (the
 * session ended, too late) tells the client its attachment ended. A WebSocket participant is not kept: its socket
 * died with its node, and its client attaches again on a new connection.
 */
import type { ClientEnd } from "./participant.js";
import type { AttachmentRecord, RelayMessage } from "./relay-protocol.js";
import type { CrossNode, RemoteClient } from "./session-relay.js";
import { saveAttachment } from "./session-restore.js";
import { notificationText, SESSION_ENDED, type ParticipantRole } from "./share-protocol.js";
import type { SharedSession } from "./shared-session.js";

/** A participant lost with its node, as it was. */
export interface DepartedParticipant {
  readonly role: ParticipantRole;
  readonly clientId: string;
  readonly name?: string;
  readonly version?: string;
}

/** How long a lost participant is kept for a rejoin: its node's lease lapsing and an adoption take less. */
export const DEPARTED_KEEP_MS = 120_000;

/** How long a rejoin waits for its session to be listed live, when the relay does not say. */
const DEFAULT_WAIT_MS = 30_000;

/** How often, and how many times, a rejoin looks again for a session being rebuilt here (see `#back`). */
const RESTORE_LOOK_MS = 250;
const RESTORE_LOOKS = 20;

/** Why a rejoin was refused, as the client reads it. */
export const REJOIN_REFUSED =
  "the node that held this connection stopped, and the session's node no longer had this attachment (the session " +
  "ended, or the connection took too long to come back); attach to the session again";

/** The participants a session's node lost with their nodes, by session and connection, for a while. */
export class Departures {
  readonly #kept = new Map<string, { participant: DepartedParticipant; until: number }>();

  constructor(private readonly keepMs = DEPARTED_KEEP_MS) {}

  keep(sessionId: string, connectionId: string, participant: DepartedParticipant): void {
    const now = Date.now();
    for (const [key, kept] of this.#kept) if (kept.until < now) this.#kept.delete(key);
    this.#kept.set(`${sessionId}\u0000${connectionId}`, { participant, until: now + this.keepMs });
  }

  /** What `connectionId` was in `sessionId`, once (undefined: never kept, or kept too long ago). */
  take(sessionId: string, connectionId: string): DepartedParticipant | undefined {
    const key = `${sessionId}\u0000${connectionId}`;
    const kept = this.#kept.get(key);
    this.#kept.delete(key);
    return kept === undefined || kept.until < Date.now() ? undefined : kept.participant;
  }

  get size(): number {
    return this.#kept.size;
  }
}

/** What `Rejoins` needs of the hub it is part of. */
export interface RejoinHub {
  /** Logs an info line. */
  log(message: string, fields: Record<string, unknown>): void;
  session(sessionId: string): SharedSession | undefined;
  /** The sessions `client` is attached to here. */
  sessionsOf(client: ClientEnd): Iterable<SharedSession>;
  /** `client` is a member of `session` now. */
  member(client: ClientEnd, session: SharedSession): void;
  /** The participant's connection is gone: it leaves every session (a relayed `gone`). */
  gone(client: RemoteClient, reason: string): void;
}

/** The session's node's side of rejoins: participants lost with their nodes, and their coming back. */
export class Rejoins {
  readonly #departures: Departures;

  constructor(
    private readonly hub: RejoinHub,
    keepMs?: number,
  ) {
    this.#departures = new Departures(keepMs);
  }

  /** A participant lost with its node: gone, and kept for a while (a Streamable HTTP one) for a rejoin. */
  lost(client: RemoteClient): void {
    for (const session of client.transport === "http" ? this.hub.sessionsOf(client) : []) {
      const participant = session.participantOf(client);
      if (participant !== undefined)
        this.#departures.keep(session.sessionId, client.id, { role: participant.role, ...participant.who });
    }
    this.hub.gone(client, `its node (${client.info.node}) stopped`);
  }

  /** Participants of a session rebuilt here whose own node stopped too (`RestoredSession.departed`). */
  keepDeparted(sessionId: string, records: readonly AttachmentRecord[]): void {
    for (const { client, role, clientId, name, version } of records)
      this.#departures.keep(sessionId, client.id, { role, clientId, name, version });
  }

  /**
   * This node adopted `client`'s connection, attached to `sessionId` through a node that stopped: it goes on here once
   * this node runs the session, or through the live node that lists it (asked with `rejoin`). The session's node may
   * have stopped too: its adopter lists it once it rebuilt it, so this looks again every half second, for
   * `waitMs`; then the client is told its attachment ended.
   */
  async rejoin(cross: CrossNode, client: ClientEnd, sessionId: string, afterSeq: number): Promise<void> {
    const deadline = Date.now() + (cross.relay.adoptionWaitMs ?? DEFAULT_WAIT_MS);
    for (;;) {
      // Its connection ended while it waited: nobody is left to go on.
      if (client.gone === true) return;
      if (this.hub.session(sessionId) !== undefined) {
        for (const stale of cross.remoteClients(client.id)) this.lost(stale);
        return this.#back(cross, client, sessionId, afterSeq, () => undefined);
      }
      const node = await cross.relay.locateListed(sessionId).catch((error: unknown) => {
        this.hub.log("a rejoin could not read the cluster's state; looking again", { sessionId, error: String(error) });
        return undefined;
      });
      if (node !== undefined) return cross.rejoinThrough(client, sessionId, node, afterSeq);
      if (Date.now() >= deadline) {
        const reason =
          `the node that held this connection stopped, and session ${sessionId} is not live anywhere now; ` +
          "load it again (session/load), or attach to it again once a client has it open";
        client.deliverToClient(notificationText(SESSION_ENDED, { sessionId, reason }), sessionId);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** A participant back through the node that adopted its connection (a relayed `rejoin`). */
  rejoined(cross: CrossNode, message: RelayMessage & { kind: "rejoin" }): void {
    const { from, sessionId, afterSeq } = message;
    // The same connection through its stopped node, not seen gone here yet: its lease lapsed, it is gone now.
    for (const stale of cross.remoteClients(from.id)) if (stale.info.node !== from.node) this.lost(stale);
    const client = cross.remoteClient(from);
    this.#back(cross, client, sessionId, afterSeq, () => {
      cross.left(client, sessionId);
      if ([...this.hub.sessionsOf(client)].length === 0) cross.forget(client);
    });
  }

  /**
   * `client` goes on in `sessionId` as it was, or is told it ended (and `refused` runs). A session rebuilt here after
   * its node died is live (and listed) a moment before its departed participants are kept (`keepDeparted`, once the
   * adoption is done): a rejoin that comes in between looks again, every `RESTORE_LOOK_MS`, a few times.
   */
  #back(
    cross: CrossNode,
    client: ClientEnd,
    sessionId: string,
    afterSeq: number,
    refused: () => void,
    looks = RESTORE_LOOKS,
  ): void {
    if (client.gone === true) return refused();
    const session = this.hub.session(sessionId);
    const departed = this.#departures.take(sessionId, client.id);
    if (session !== undefined && departed === undefined && looks > 0) {
      const again = () => this.#back(cross, client, sessionId, afterSeq, refused, looks - 1);
      return void setTimeout(again, RESTORE_LOOK_MS).unref?.();
    }
    if (session === undefined || departed === undefined) {
      client.deliverToClient(notificationText(SESSION_ENDED, { sessionId, reason: REJOIN_REFUSED }), sessionId);
      return refused();
    }
    session.restore(client, departed, afterSeq < 0 ? session.history.lastSeq : afterSeq);
    this.hub.member(client, session);
    saveAttachment(cross, session, client, "none");
    this.hub.log("a participant whose node stopped went on through the node that adopted its connection", {
      sessionId,
      connectionId: client.id,
      afterSeq,
    });
  }
}
