/**
 * The two ends a shared session joins: the connection whose agent runs the session (`AgentEnd`, the host) and the
 * client connections attached to it (`ClientEnd`), each attachment a `Participant` with its role. `ServerConnection`
 * is both ends of its own connection; a cluster backend can give the hub ends that live on other nodes.
 */
import type { ParticipantInfo, ParticipantRole } from "./share-protocol.js";

/** A client connection as a shared session sees it. */
export interface ClientEnd {
  /** The connection id (`Acp-Connection-Id`). */
  readonly id: string;
  readonly transport: "http" | "websocket";
  /** What the client said of itself in `initialize` (`clientInfo`). */
  readonly clientInfo: { readonly name?: string; readonly version?: string } | undefined;
  /**
   * Whether the client speaks shared sessions: it attached with `session/attach`, or said so in `initialize`
   * (`clientCapabilities._meta.acpkit.sharedSessions: true`). Only such clients get the server's own
   * `session/update` kinds (`prompt_received`, `turn_complete`, `permission_resolved`, `client_disconnected`), which
   * other clients' validators would reject.
   */
  readonly sharingAware: boolean;
  /** The only session this connection may observe (it was opened with that session's share token), if any. */
  readonly shareGrant: string | undefined;
  /**
   * Queues an agent message's text for the client on `sessionId`'s stream (WebSocket: the socket). False when the
   * client is gone, or was just cut off for going past a limit (a slow observer does not slow the session).
   */
  deliverToClient(text: string, sessionId: string | undefined): boolean;
  /**
   * True once the client's connection ended (nothing reaches it any more). Optional: an end without it is taken as
   * live until the hub is told it is gone. A rejoin that waits for its session stops waiting when it turns true.
   */
  readonly gone?: boolean;
}

/** The connection whose agent runs a shared session. */
export interface AgentEnd {
  readonly id: string;
  /** Hands a message to the agent, as its own client would (a request is tracked for stats and graceful close). */
  deliverToAgent(message: Record<string, unknown>, chars: number, sessionId: string | undefined): void;
  /** True once the host's own client went away (the agent runs on for the others). */
  readonly clientGone: boolean;
  /** Stops the agent: nobody who keeps it alive is left. */
  endAgent(reason: string): void;
}

/** One client attached to one session. */
export class Participant {
  readonly attachedAt = Date.now();

  constructor(
    readonly client: ClientEnd,
    readonly sessionId: string,
    readonly role: ParticipantRole,
    readonly clientId: string,
    readonly name: string | undefined,
    readonly version: string | undefined,
    /** Whether it gets the server's own update kinds (it attached, or its client said it knows them). */
    readonly sharingAware: boolean,
  ) {}

  get isController(): boolean {
    return this.role === "controller";
  }

  /** The RFD's client descriptor (`sentBy`, `resolvedBy`, `client`). */
  get who(): { clientId: string; name?: string; version?: string } {
    return {
      clientId: this.clientId,
      ...(this.name === undefined ? {} : { name: this.name }),
      ...(this.version === undefined ? {} : { version: this.version }),
    };
  }

  get info(): ParticipantInfo {
    return { ...this.who, role: this.role, transport: this.client.transport, attachedAt: this.attachedAt };
  }

  /** Sends a message's text to this participant on the session's stream; false when it is gone. */
  send(text: string): boolean {
    return this.client.deliverToClient(text, this.sessionId);
  }
}
