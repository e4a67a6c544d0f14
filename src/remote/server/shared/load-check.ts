/**
 * `session/load` and `session/resume` of a session that is already live: refused, with the way to join it
 * (`session/attach`), so that no session ever runs twice (two agents writing one history, participants split between
 * them). On one node the hub knows its sessions; in a cluster a session not live here may be live on another node, so
 * the load waits for the cluster's answer (`SessionRelay.locate`), and the connection's later calls wait behind it:
 * the agent sees them in the order the client sent them.
 */
import { sessionIdOfParams } from "../../http-protocol.js";
import type { ClientEnd, AgentEnd } from "./participant.js";
import { errorResponseText, ERROR_SESSION_LIVE } from "./share-protocol.js";

type Ends = ClientEnd & AgentEnd;
type Call = { message: Record<string, unknown>; chars: number };

/** Answers a load of a session live on this server (`node` undefined) or on another node with ERROR_SESSION_LIVE. */
export function refuseLiveSession(client: ClientEnd, message: Record<string, unknown>, node?: string): void {
  if (!("id" in message)) return;
  const sessionId = sessionIdOfParams(message.params)!;
  const where = node === undefined ? "on this server" : `on node ${node} of this cluster`;
  client.deliverToClient(
    errorResponseText(
      message.id,
      ERROR_SESSION_LIVE,
      `Session ${sessionId} is live ${where} (another client's agent runs it): join it with session/attach ` +
        `instead of loading it a second time`,
      node === undefined ? { sessionId } : { sessionId, node },
    ),
    undefined,
  );
}

/** The cluster half: loads of sessions not live here wait for the cluster's answer. */
export class ClusterLoadCheck {
  readonly #held = new Map<Ends, Call[]>();

  constructor(
    private readonly locate: (sessionId: string) => Promise<string | undefined>,
    /** The hub's handling of a client call: true when taken, false when it goes to the connection's agent. */
    private readonly dispatch: (connection: Ends, message: Record<string, unknown>, chars: number) => boolean,
  ) {}

  /** True when `connection` waits for a check: the call is kept, in order, until it is done. */
  holds(connection: Ends, message: Record<string, unknown>, chars: number): boolean {
    const held = this.#held.get(connection);
    if (held === undefined) return false;
    held.push({ message, chars });
    return true;
  }

  /**
   * Takes the load or resume `message` of `sessionId` (live on no node known here): refused when another node runs
   * the session; else `open` is called and the message goes to the connection's agent.
   */
  check(connection: Ends, sessionId: string, message: Record<string, unknown>, chars: number, open: () => void): true {
    this.#held.set(connection, []);
    this.locate(sessionId).then(
      (node) => {
        if (node !== undefined) refuseLiveSession(connection, message, node);
        else {
          open();
          connection.deliverToAgent(message, chars, sessionId);
        }
        this.#release(connection);
      },
      (error: unknown) => {
        if ("id" in message)
          connection.deliverToClient(
            errorResponseText(
              message.id,
              -32603,
              `Internal error: the cluster's state could not be read to check that session ${sessionId} is not ` +
                `live on another node (${error instanceof Error ? error.message : String(error)}); retry shortly`,
            ),
            undefined,
          );
        this.#release(connection);
      },
    );
    return true;
  }

  /** The calls that waited, in order, as if they arrived now (one may start another check: the rest wait again). */
  #release(connection: Ends): void {
    const held = this.#held.get(connection) ?? [];
    this.#held.delete(connection);
    for (let i = 0; i < held.length; i++) {
      const { message, chars } = held[i]!;
      if (!this.dispatch(connection, message, chars))
        connection.deliverToAgent(message, chars, sessionIdOfParams(message.params));
      const again = this.#held.get(connection);
      if (again !== undefined) {
        again.push(...held.slice(i + 1));
        return;
      }
    }
  }
}
