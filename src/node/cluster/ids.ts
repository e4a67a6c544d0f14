/**
 * Ids of the cluster: connection ids (144 random bits from the system's CSPRNG, base64url: unguessable, since the id
 * is what routes a request to a connection) and node ids (random too, so two processes never share one, even after a
 * restart on the same host).
 */
import { randomBytes } from "node:crypto";

/** A new connection id: 24 base64url characters, 144 random bits. */
export function newConnectionId(): string {
  return randomBytes(18).toString("base64url");
}

/** A new node id: `<name>-` (when given) then 12 base64url characters (72 random bits). */
export function newNodeId(name?: string): string {
  const random = randomBytes(9).toString("base64url");
  return name === undefined || name === "" ? random : `${name}-${random}`;
}

/** A reader's token: what marks one reader of a stream in the database. */
export function newReaderToken(): string {
  return randomBytes(12).toString("base64url");
}

/** Ids a client may send: what could be one of ours (or another node's) and is worth a database lookup. */
export function plausibleConnectionId(id: string): boolean {
  return id.length > 0 && id.length <= 128;
}
