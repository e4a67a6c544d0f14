/**
 * A server connection's part in shared sessions: both its ends as the hub sees them (the client it serves, the
 * agent it hosts) and the hooks the connection calls on each message before its own routing. A connection whose
 * client goes away while others still use its agent's sessions keeps its agent running, without a client.
 */
import { isRecord } from "../../../jsonrpc/messages.js";
import { idKey } from "../../http-protocol.js";
import type { AgentLink } from "../agent-link.js";
import { ConnectionLimitError, type OutputSink } from "../output-sink.js";
import type { AgentEnd, ClientEnd } from "./participant.js";
import type { SessionHub } from "./session-hub.js";
import { ExactId } from "./share-protocol.js";
import { serializeMessage } from "../../../transports/serialize.js";

/** What the endpoint needs of its connection. */
export interface HostedConnection {
  readonly id: string;
  readonly transport: "http" | "websocket";
  readonly output: OutputSink | undefined;
  readonly agentLink: AgentLink;
  readonly isOpen: boolean;
  /** How the connection ended, once it did. */
  readonly ended: unknown;
  /** Tracks a request handed to the agent (stats, graceful close, routing its answer). */
  trackRequest(key: string, method: string, sessionId: string | undefined): void;
  limitExceeded(error: ConnectionLimitError): void;
  /** Ends the connection (`force`: for good, its agent too, even while others use its sessions). */
  end(end: { reason: string }, force: boolean): Promise<void>;
  /** The client went away but the agent stays: stop writing to the client, stop idling out. */
  dropClient(): void;
  /** Holds what goes to the client, in order, until `until` settles. */
  holdOutput(until: Promise<unknown>): void;
}

/** Ends of a connection that count as its client going away (the agent may outlive them). */
const CLIENT_ENDS: ReadonlySet<string> = new Set(["socket closed", "socket error", "deleted", "idle"]);

export class SharedEndpoint implements ClientEnd, AgentEnd {
  clientInfo: { name?: string; version?: string } | undefined;
  sharingAware = false;
  #clientGone = false;

  constructor(
    private readonly connection: HostedConnection,
    private readonly hub: SessionHub,
    readonly shareGrant: string | undefined,
  ) {}

  get id(): string {
    return this.connection.id;
  }

  get transport(): "http" | "websocket" {
    return this.connection.transport;
  }

  get clientGone(): boolean {
    return this.#clientGone;
  }

  /** The client went away, or the connection ended (`ClientEnd.gone`). */
  get gone(): boolean {
    return this.#clientGone || this.connection.ended !== undefined;
  }

  deliverToClient(text: string, sessionId: string | undefined): boolean {
    const output = this.connection.output;
    if (this.#clientGone || output === undefined || !this.connection.isOpen) return false;
    try {
      output.deliver(text, sessionId);
      return true;
    } catch (error) {
      if (!(error instanceof ConnectionLimitError)) throw error;
      this.connection.limitExceeded(error);
      return false;
    }
  }

  deliverToAgent(message: Record<string, unknown>, chars: number, sessionId: string | undefined): void {
    // A message passed on as the client sent it keeps its exact id (the agent answers with it).
    const exact = message.id instanceof ExactId ? message.id : undefined;
    if (exact !== undefined) message = { ...message, id: exact.value };
    if (typeof message.method === "string" && "id" in message) {
      const key = idKey(message.id);
      if (key !== undefined) this.connection.trackRequest(key, message.method, sessionId);
    }
    this.connection.agentLink.deliver(message, chars, exact?.raw);
  }

  endAgent(reason: string): void {
    void this.connection.end({ reason }, true);
  }

  // Hooks of the connection.

  /** The client's `initialize`, and the agent's answer: attach is advertised (`sessionCapabilities.attach`). */
  initialized(
    request: Record<string, unknown>,
    answer: { message: Record<string, unknown>; text: string },
    rawId: string | undefined,
  ): { message: Record<string, unknown>; text: string } {
    const params = isRecord(request.params) ? request.params : {};
    const info = isRecord(params.clientInfo) ? params.clientInfo : undefined;
    if (info !== undefined)
      this.clientInfo = {
        ...(typeof info.name === "string" ? { name: info.name } : {}),
        ...(typeof info.version === "string" ? { version: info.version } : {}),
      };
    const clientCapabilities = isRecord(params.clientCapabilities) ? params.clientCapabilities : {};
    const meta =
      isRecord(clientCapabilities._meta) && isRecord(clientCapabilities._meta.acpkit)
        ? clientCapabilities._meta.acpkit
        : {};
    this.sharingAware = meta.sharedSessions === true;
    const result = answer.message.result;
    if (!isRecord(result) || !isRecord(result.agentCapabilities)) return answer;
    const capabilities = result.agentCapabilities;
    const session = isRecord(capabilities.sessionCapabilities) ? capabilities.sessionCapabilities : {};
    const roles = this.shareGrant === undefined ? ["controller", "observer"] : ["observer"];
    const message = {
      ...answer.message,
      result: {
        ...result,
        agentCapabilities: { ...capabilities, sessionCapabilities: { ...session, attach: { roles } } },
      },
    };
    // The client's id, exactly as it sent it (beyond 2^53 too).
    return { message, text: serializeMessage(message, Number.MAX_SAFE_INTEGER, rawId) };
  }

  /** A client request or notification: true when the hub took it. */
  clientCall(message: Record<string, unknown>, chars: number, rawId: string | undefined): boolean {
    return this.hub.fromClient(this, message, chars, rawId);
  }

  /** A client response: true when it answers one of the hub's requests. */
  clientResponse(message: Record<string, unknown>): boolean {
    return this.hub.responseFromClient(this, message);
  }

  /** An agent request or notification: true when it belongs to a shared session. */
  agentMessage(message: Record<string, unknown>, text: string): boolean {
    return this.hub.fromAgent(this, message, text);
  }

  /**
   * An agent response, and the request of the connection's own client it answers (if tracked): true when it
   * answered one of the hub's requests; else the hub learns of new sessions and the connection delivers it.
   */
  agentResponse(
    message: Record<string, unknown>,
    request: { method: string; sessionId: string | undefined } | undefined,
  ): boolean {
    if (this.hub.responseFromAgent(this, message)) return true;
    if (request !== undefined) {
      // A session the other nodes must find before its client learns its id: the answer (and what follows) waits.
      const published = this.hub.agentAnswered(this, request.method, request.sessionId, message);
      if (published !== undefined) this.connection.holdOutput(published);
    }
    return false;
  }

  /**
   * The connection is ending for `reason`. True when its client went away while others still use its agent's
   * sessions: the connection then lives on without a client (the caller stops there).
   */
  ending(reason: string): boolean {
    if (!this.#clientGone && this.connection.isOpen && CLIENT_ENDS.has(reason) && this.hub.retainsAgent(this)) {
      this.#clientGone = true;
      this.connection.dropClient();
      this.hub.clientGone(this, reason);
      return true;
    }
    return false;
  }

  /** The connection ended (its agent is stopping). */
  ended(reason: string): void {
    this.#clientGone = true;
    this.hub.clientGone(this, reason);
    this.hub.agentEnded(this, reason);
  }
}
