/**
 * A cluster connection as any node sees it for one request. When this node owns it (runs its agent), client messages
 * go to the agent directly, as in memory; otherwise they go through the owner's inbox in the database. Streams are
 * read from the database on any node (`stream-reader.ts`).
 */
import { kindOf } from "../../remote/server/routing.js";
import type {
  BackendConnection,
  ClientCallInput,
  ClientResponseInput,
  OpenStreamInput,
  Refusal,
  StreamReader,
} from "../../remote/server/backend/backend.js";
import type { ClusterNode, Hosted } from "./cluster-node.js";
import { openClusterStream } from "./stream-reader.js";

const CLIENT_CLOSED: Refusal = { status: 499, message: "Client Closed Request" };
const AGENT_BEHIND: Refusal = {
  status: 429,
  message: "Too Many Requests: the agent is not taking messages as fast as they come; retry shortly",
  headers: { "Retry-After": "1" },
};
const PROMPT_NOT_RECORDED: Refusal = {
  status: 503,
  message:
    "Service Unavailable: this connection moved to another node as the prompt arrived, and the prompt may not run; " +
    "send it again",
  headers: { "Retry-After": "1" },
};

export function databaseDown(error: unknown): Refusal {
  return {
    status: 503,
    message: `Service Unavailable: the cluster's database did not answer (${error instanceof Error ? error.message : String(error)}); retry shortly`,
    headers: { "Retry-After": "2" },
  };
}

export class ClusterConnection implements BackendConnection {
  constructor(
    private readonly node: ClusterNode,
    readonly connectionId: string,
    readonly credential: string | undefined,
  ) {}

  async send(input: ClientCallInput): Promise<Refusal | undefined> {
    const { maxIdLength } = this.node.limits;
    const id = input.message.id;
    if (typeof id === "string" && id.length > maxIdLength)
      return { status: 400, message: `Bad Request: the request id is longer than maxIdLength (${maxIdLength})` };
    const hosted = this.node.local(this.connectionId);
    if (hosted !== undefined) return this.#sendLocal(hosted, input);
    try {
      await this.node.inbox.add({
        connectionId: this.connectionId,
        kind: "call",
        sessionId: input.sessionId,
        body: input.text,
      });
      return undefined;
    } catch (error) {
      return databaseDown(this.node.redact(error));
    }
  }

  async sendResponse(input: ClientResponseInput): Promise<Refusal | undefined> {
    const hosted = this.node.local(this.connectionId);
    if (hosted !== undefined) {
      const refusal = hosted.host.forwardResponse(input.message, input.text.length, input.headerSessionId);
      if (refusal === undefined) hosted.sink.clientAnswered(input.message.id);
      return refusal;
    }
    try {
      await this.node.inbox.add({
        connectionId: this.connectionId,
        kind: "response",
        sessionId: input.headerSessionId,
        body: input.text,
      });
      return undefined;
    } catch (error) {
      return databaseDown(this.node.redact(error));
    }
  }

  async openStream(input: OpenStreamInput): Promise<StreamReader | Refusal> {
    try {
      return await openClusterStream(this.node, this.connectionId, input.sessionId ?? "", input.cursor);
    } catch (error) {
      return databaseDown(this.node.redact(error));
    }
  }

  async #sendLocal(hosted: Hosted, input: ClientCallInput): Promise<Refusal | undefined> {
    const { host, sink } = hosted;
    if (kindOf(input.message) === "request" && sink.backlogged) {
      // An answer adds output: wait while the database is behind on what the agent wrote.
      let onAbort!: () => void;
      const aborted = new Promise<boolean>((resolve) => {
        onAbort = () => resolve(true);
        input.signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        if (await Promise.race([sink.whenRoom().then(() => false), aborted])) return CLIENT_CLOSED;
      } finally {
        input.signal.removeEventListener("abort", onAbort);
      }
      if (!host.isOpen) return this.node.gone;
    }
    if (host.agentLink.inboxChars > this.node.limits.maxBufferedBytes) return AGENT_BEHIND;
    // A prompt is acknowledged (202) once its row is committed: a node that dies before has acknowledged nothing
    // (the client's POST fails), one that dies after leaves the row to the adopting node, which answers the prompt.
    // Acknowledged before, a prompt the node took to its grave was answered by nobody: its client waited for ever.
    let recorded: Promise<void> | undefined;
    const refusal = this.node.forwardCall(hosted, input.message, input.text.length, input.sessionId, {
      prompt: (written) => (recorded = written),
    });
    if (refusal !== undefined || recorded === undefined) return refusal;
    try {
      await recorded;
    } catch (error) {
      return databaseDown(this.node.redact(error));
    }
    return hosted.fenced ? PROMPT_NOT_RECORDED : undefined;
  }
}
