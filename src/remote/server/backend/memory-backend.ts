/**
 * The in-memory backend, `AcpServer`'s default: the connection registry is a map, a client message goes to the agent
 * by a function call, the streams are `MemoryStreams` in the owner's memory. One object may be bound by several
 * servers in one process: they then share its connections (any of them answers any request for any connection, and
 * the agent runs on the server that answered `initialize`), as separate processes share a database. That is how
 * the cluster scenarios run without one.
 */
import type { ResolvedLimits } from "../limits.js";
import { kindOf } from "../routing.js";
import type { ServerConnection } from "../server-connection.js";
import type {
  BackendConnection,
  BackendInitializeInput,
  BackendInitializeResult,
  ClientCallInput,
  ClientResponseInput,
  NodeBackend,
  OpenStreamInput,
  Refusal,
  ServerBackend,
  ServerNode,
  StreamReader,
} from "./backend.js";
import { ServerBackendError } from "./backend.js";
import { MemoryStreams } from "./memory-streams.js";

/** Options of `MemoryServerBackend`. */
export interface MemoryServerBackendOptions {
  /**
   * The id the client sees on each agent request, given the connection and the node hosting its agent. Default: the
   * agent's own ids, unchanged.
   */
  readonly serverRequestId?: (connectionId: string, nodeId: string) => string | number;
}

export class MemoryServerBackend implements ServerBackend {
  readonly #connections = new Map<string, MemoryConnection>();
  readonly #options: MemoryServerBackendOptions;
  #nodes = 0;

  constructor(options: MemoryServerBackendOptions = {}) {
    this.#options = options;
  }

  /** Connections open on any node. */
  get size(): number {
    return this.#connections.size;
  }

  bind(node: ServerNode): NodeBackend {
    const nodeId = `node-${++this.#nodes}`;
    const allocate = this.#options.serverRequestId;
    return new MemoryNodeBackend(
      nodeId,
      node,
      this.#connections,
      allocate === undefined ? undefined : (connectionId) => allocate(connectionId, nodeId),
    );
  }
}

class MemoryNodeBackend implements NodeBackend {
  readonly serverRequestId: ((connectionId: string) => string | number) | undefined;

  constructor(
    readonly nodeId: string,
    private readonly node: ServerNode,
    private readonly connections: Map<string, MemoryConnection>,
    serverRequestId: ((connectionId: string) => string | number) | undefined,
  ) {
    this.serverRequestId = serverRequestId;
  }

  async initialize(input: BackendInitializeInput): Promise<BackendInitializeResult> {
    const { node, connections } = this;
    const host = node.host({
      connector: input.connector,
      ...(input.remoteAddress === undefined ? {} : { remoteAddress: input.remoteAddress }),
      onEnd: (ended) => {
        if (connections.get(ended.id)?.host === ended) connections.delete(ended.id);
      },
    });
    if (typeof host === "string")
      throw new ServerBackendError(503, `Service Unavailable: ${host}`, { headers: { "Retry-After": "5" } });
    const streams = new MemoryStreams(node.limits, {
      onLimit: host.limitExceeded,
      onOpenStreams: (count) => host.openStreamsChanged(count),
    });
    host.start(streams);
    const answer = await host.initialize(input.message, input.text.length, {
      signal: input.signal,
      ...(input.rawId === undefined ? {} : { rawId: input.rawId }),
    });
    if ("error" in answer.message) {
      // The agent refused: nothing can follow on this connection (a second initialize is not allowed on it).
      void host.end({ reason: "initialize refused" });
    } else if (!host.ended) {
      connections.set(host.id, new MemoryConnection(host, streams, node.limits, input.credential));
      node.opened(host);
    }
    return { connectionId: host.id, text: answer.text };
  }

  async connection(connectionId: string): Promise<BackendConnection | undefined> {
    return this.connections.get(connectionId);
  }

  async closeConnection(connectionId: string, end: { reason: string; error?: unknown }): Promise<boolean> {
    const connection = this.connections.get(connectionId);
    if (connection === undefined) return false;
    void connection.host.end(end);
    return true;
  }

  async close(): Promise<void> {
    // The server ends the connections it hosts; other nodes' connections are theirs.
  }
}

const GONE: Refusal = {
  status: 404,
  message:
    "Not Found: unknown Acp-Connection-Id (it ended, or never existed); POST initialize to start a new connection",
};
const CLIENT_CLOSED: Refusal = { status: 499, message: "Client Closed Request" };
const AGENT_BEHIND: Refusal = {
  status: 429,
  message: "Too Many Requests: the agent is not taking messages as fast as they come; retry shortly",
  headers: { "Retry-After": "1" },
};

/** A connection in the shared map: its host (on whichever server answered `initialize`) and its streams. */
class MemoryConnection implements BackendConnection {
  constructor(
    readonly host: ServerConnection,
    readonly streams: MemoryStreams,
    private readonly limits: ResolvedLimits,
    readonly credential: string | undefined,
  ) {}

  get connectionId(): string {
    return this.host.id;
  }

  async send(input: ClientCallInput): Promise<Refusal | undefined> {
    const host = this.host;
    host.requestStarted();
    try {
      if (kindOf(input.message) === "request") {
        // An answer adds output: a client that is not reading what it has waits here, and cannot make the agent
        // produce more.
        if (await this.#waitForRoom(input.signal)) return CLIENT_CLOSED;
        if (!host.isOpen) return GONE;
      }
      if (host.agentLink.inboxChars > this.limits.maxBufferedBytes) return AGENT_BEHIND;
      return host.forwardCall(input.message, input.text.length, input.sessionId, input.rawId);
    } finally {
      host.requestEnded();
    }
  }

  async sendResponse(input: ClientResponseInput): Promise<Refusal | undefined> {
    const host = this.host;
    host.requestStarted();
    try {
      return host.forwardResponse(input.message, input.text.length, input.headerSessionId, input.rawId);
    } finally {
      host.requestEnded();
    }
  }

  async openStream(input: OpenStreamInput): Promise<StreamReader | Refusal> {
    return this.streams.openStream(input.sessionId, input.cursor);
  }

  /** Resolves true when `signal` aborted before the connection had room for more output. */
  async #waitForRoom(signal: AbortSignal): Promise<boolean> {
    const streams = this.streams;
    if (!streams.backlogged) return false;
    if (signal.aborted) return true;
    let onAbort!: () => void;
    const abort = new Promise<boolean>((resolve) => {
      onAbort = () => resolve(true);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([streams.whenRoom().then(() => false), abort]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}
