/**
 * Shared sessions across a cluster, when a session's node dies: the node that adopts the connection of the session's
 * agent reloads the session (its replay withheld from the clients, as for the opener), then rebuilds the attachments
 * the dead node had recorded (`AttachmentRecord`), here. Each participant goes on as it was (role, client id), with no
 * replay: the session's numbering continues after the last seq any participant may have been sent, so a participant
 * sees no update twice and, from its node, no gap. A participant whose connection is held by another node is a
 * `RemoteClient` again, and its node is told the session's new owner (`moved`); one whose connection is held here is
 * the local connection itself. The hub then tells everyone who is attached.
 */
import type { ClientEnd } from "./participant.js";
import type { AttachmentRecord, RestoredSession } from "./relay-protocol.js";
import { RemoteClient, type CrossNode } from "./session-relay.js";
import type { HistoryPolicy } from "./share-protocol.js";
import type { SharedSession } from "./shared-session.js";

/** The attachment's record as its session's owner writes it (when it attached, or was rebuilt). */
export function attachmentRecord(
  cross: CrossNode,
  session: SharedSession,
  client: ClientEnd,
  historyPolicy: HistoryPolicy,
): AttachmentRecord | undefined {
  const participant = session.participantOf(client);
  if (participant === undefined) return undefined;
  return {
    sessionId: session.sessionId,
    hostConnectionId: session.host.id,
    client: client instanceof RemoteClient ? client.info : cross.describe(client),
    role: participant.role,
    historyPolicy,
    clientId: participant.clientId,
    ...(participant.name === undefined ? {} : { name: participant.name }),
    ...(participant.version === undefined ? {} : { version: participant.version }),
    lastSeq: session.history.lastSeq,
  };
}

/** Records a client's attachment for a node that may adopt the session later, and has the listing refreshed. */
export function saveAttachment(
  cross: CrossNode,
  session: SharedSession,
  client: ClientEnd,
  historyPolicy: HistoryPolicy,
): void {
  const record = attachmentRecord(cross, session, client, historyPolicy);
  if (record !== undefined) cross.relay.attachmentSaved(record);
  cross.relay.changed();
}

/** Rebuilds `state`'s attachments in `session` (just reloaded here); returns the clients now attached. */
export function restoreAttachments(cross: CrossNode, session: SharedSession, state: RestoredSession): ClientEnd[] {
  session.resume(state.lastSeq);
  const here = cross.relay.nodeId;
  const restored: ClientEnd[] = [];
  for (const record of state.attachments) {
    const client: ClientEnd | undefined =
      record.client.node === here
        ? cross.adoptedHere(record.client.id, session.sessionId)
        : cross.remoteClient(record.client);
    if (client === undefined) {
      cross.relay.attachmentRemoved(session.sessionId, record.client.id);
      continue;
    }
    session.restore(client, record);
    restored.push(client);
    if (record.client.node !== here)
      cross.relay.send(record.client.node, {
        kind: "moved",
        to: record.client.id,
        sessionId: session.sessionId,
        node: here,
      });
  }
  session.participantsChanged();
  return restored;
}
