/**
 * The backend seam of `AcpServer`: where Streamable HTTP connections live. The server parses, checks and routes
 * requests (statuses, headers, which session a message belongs to); its backend keeps the connection registry,
 * carries client messages to the agent, keeps each connection's streams (the connection stream and one per session,
 * read from a cursor) and allocates the ids of the agent's requests to the client.
 *
 * The in-memory backend (`MemoryServerBackend`, the default) keeps all of it in this process, as acpkit always did.
 * The contract is written for a shared one as well (a database), where any node answers any request:
 *
 * - **Ownership is explicit.** A connection's agent runs on one node, its *owner*: the node that answered its
 *   `initialize` (or that adopted it later). Only the owner holds the `ServerConnection` (the agent host, made with
 *   `ServerNode.host`); it writes the agent's output to the connection's streams and receives the client's
 *   messages. Any node can find a connection (`connection()`), hand it a client message (`send`, `sendResponse`),
 *   read its streams (`openStream`) and end it (`closeConnection`).
 * - **Everything that may cross nodes is async.** The calls on the per-event path are not: an owner appends the
 *   agent's output synchronously to its `OutputSink` (backpressure through `whenRoom()`), and a `StreamReader`
 *   hands over what is ready synchronously (`take`), waiting (`wait`) only when nothing is.
 * - **Streams are read from a cursor.** Every event of a stream has an id, unique within the connection and
 *   increasing along the stream; a reader opened at a cursor gets exactly the events after it (no gap, no
 *   duplicate), as long as the cursor is within the stream's retention window; one opened without a cursor gets
 *   what no reader has taken yet (what the server always did).
 *
 * Hot path (per POST or GET, once): `connection`, `BackendConnection.send` / `sendResponse` / `openStream`. Per
 * event: `OutputSink.deliver` on the owner; per batch of events: `StreamReader.take` on the reading node. Once per
 * connection: `initialize`, `closeConnection`.
 *
 * On the owner, a backend drives the host it made (`ServerConnection`): `start(output)` with its `OutputSink` (the
 * streams the agent's output goes to, routed by the host: `deliver(text, sessionId)`), `initialize(...)`,
 * `forwardCall` / `forwardResponse` for client messages (they return refusals), `end(...)`. The host ends an HTTP
 * connection nobody uses for `idleTimeoutMs`: activity it cannot see (POSTs and streams on other nodes) is reported
 * to it with `requestStarted()` / `requestEnded()` and `openStreamsChanged(count)`. A node adopting a connection
 * hosts it under its id (`ServerNode.host({ connectionId })`) and replays what it needs through the same calls.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { Logger } from "../../../jsonrpc/logger.js";
import type { AgentConnector } from "../../../acp/agent-connector.js";
import type { ResolvedLimits } from "../limits.js";
import type { ConnectionEnd, ServerConnection } from "../server-connection.js";
import type { RelayEndpoint, SessionRelay } from "../shared/session-relay.js";

/** A client message or stream refused: the HTTP status and a text that says what was wrong and what to do. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A failure a backend reports with its own HTTP status, thrown from any backend call: the server answers `status`
 * with `message` as text, or as JSON `{ code, message }` when `code` is given (the official SPI's error mapping).
 */
export class ServerBackendError extends Error {
  readonly status: number;
  readonly code: string | number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    status: number,
    message: string,
    options: { cause?: unknown; code?: string | number; headers?: Record<string, string> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ServerBackendError";
    this.status = status;
    this.code = options.code;
    this.headers = options.headers;
  }
}

/** What a backend is given by the server that uses it (`bind`): how to host an agent on this node. */
export interface ServerNode {
  readonly limits: ResolvedLimits;
  readonly logger: Logger;
  /**
   * Hosts an agent for a Streamable HTTP connection on this node: a new `ServerConnection` (counted against
   * `maxConnections`, listed by `stats()`, ended by the server's `close()`), not started yet; or why the node cannot
   * take one more (the text of a 503). `connectionId` is given when adopting a connection that already exists
   * elsewhere; otherwise a new random id is made. `onEnd` is called once when the connection ends, after the
   * server's own bookkeeping. The server request ids of the host come from the backend's `serverRequestId`.
   */
  host(options: HostOptions): ServerConnection | string;
  /** Reports a hosted connection open (logger, `onConnectionEvent`): call once its `initialize` succeeded. */
  opened(connection: ServerConnection): void;
}

/** Options of `ServerNode.host`. */
export interface HostOptions {
  readonly connector: AgentConnector;
  readonly remoteAddress?: string;
  readonly connectionId?: string;
  onEnd?(connection: ServerConnection, end: ConnectionEnd): void;
}

/** What `initialize` is given: the client's `initialize` request, parsed and as sent. */
export interface BackendInitializeInput {
  /** The agent to connect (the server's, or the per-request override). */
  readonly connector: AgentConnector;
  readonly message: Record<string, unknown>;
  /** The request's JSON text (its length is what limits count). */
  readonly text: string;
  /** The exact text of the request's id when a JS number cannot hold it (the answer echoes it). */
  readonly rawId?: string;
  /** Aborts when the client gives up on the request (the server answers 499). */
  readonly signal: AbortSignal;
  readonly remoteAddress?: string;
  /**
   * What identifies the credential the client opened the connection with (`AccessPolicy.credentialOf`: a fingerprint,
   * never the credential): the connection keeps it, and its requests on any node must present the same one.
   */
  readonly credential?: string;
}

/** The agent's answer to `initialize` and the connection it opened. */
export interface BackendInitializeResult {
  readonly connectionId: string;
  /** The agent's `initialize` response as JSON text (an error response too: the connection is then already ended). */
  readonly text: string;
}

/**
 * acpkit's server backend: state shared by the nodes of a cluster (a database), or by the servers of one process (the
 * in-memory backend). Each server binds it once and talks to its own `NodeBackend`.
 */
export interface ServerBackend {
  /** Makes the server (one node) a user of this backend. Called once per server, before any other call from it. */
  bind(node: ServerNode): NodeBackend;
}

/** The backend as one node (one `AcpServer`) uses it. */
export interface NodeBackend {
  /** The node: unique among the nodes that share the backend's state. */
  readonly nodeId: string;

  /**
   * Opens a connection: hosts a new agent on this node (`ServerNode.host`), delivers `initialize` and waits for its
   * answer, and only then makes the connection reachable from every node. Throws an `InitializeFailure` (answered
   * with a JSON-RPC error and its status: 499, 502, 504, 500) or a `ServerBackendError` (503 when full). An agent that
   * refuses `initialize` (an error response) gets its answer through; its connection is then ended.
   */
  initialize(input: BackendInitializeInput): Promise<BackendInitializeResult>;

  /**
   * The connection with this id, on whichever node its agent runs; undefined when it is unknown or has ended (404).
   * Called once per POST and GET: a shared backend caches what it can.
   */
  connection(connectionId: string): Promise<BackendConnection | undefined>;

  /** Ends a connection from any node (DELETE): its agent is stopped wherever it runs. False when it is unknown. */
  closeConnection(connectionId: string, end: ConnectionEnd): Promise<boolean>;

  /**
   * The id the client sees on the agent's next request to it (`session/request_permission`, `fs/*`, ...) on a
   * connection this node hosts: unique within the connection across every agent it ever had (an adopting node must
   * not reuse the ids of the agent it replaces). Synchronous: called on the owner for each agent request, by the
   * hosts `ServerNode.host` makes. Absent: the agent's own ids go to the client unchanged (the in-memory default:
   * one agent per connection).
   */
  readonly serverRequestId?: ((connectionId: string) => string | number) | undefined;

  /** Why this node should take no traffic now (its shared state is out of reach, it is draining); undefined: ready. */
  ready?(): Promise<string | undefined>;

  /** The backend's metrics for this node, in Prometheus text format (appended to the server's own). */
  metrics?(): Promise<string>;

  /**
   * Shared sessions across the nodes (when the server has them on): the relay through which this node's hub reaches
   * the sessions and participants of the other nodes (see `shared/session-relay.ts`). Absent: sessions are per node.
   */
  sharedSessions?(hub: RelayEndpoint): SessionRelay;

  /** The server is closing (after it ended the connections it hosts): release what this node holds. */
  close(): Promise<void>;
}

/** What a client POSTs on a connection: a request or notification for the agent, or a response to the agent. */
export interface ClientMessageInput {
  readonly message: Record<string, unknown>;
  /** The POST body (the message's JSON text). */
  readonly text: string;
  /** The exact text of the message's id when a JS number cannot hold it (beyond 2^53): kept exactly end to end. */
  readonly rawId?: string;
}

/** A client request or notification, with the session it belongs to (checked against `Acp-Session-Id`). */
export interface ClientCallInput extends ClientMessageInput {
  /** The session the message belongs to (its `Acp-Session-Id`, equal to its params' `sessionId`), if any. */
  readonly sessionId: string | undefined;
  /** Aborts when the client gives up on the POST (answer with a 499 refusal). */
  readonly signal: AbortSignal;
}

/** A client's response to an agent request, with the request's `Acp-Session-Id` header (undefined: none). */
export interface ClientResponseInput extends ClientMessageInput {
  readonly headerSessionId: string | undefined;
}

/** Which stream to read, and from where. */
export interface OpenStreamInput {
  /** The session's stream; undefined: the connection stream. */
  readonly sessionId: string | undefined;
  /**
   * The `Last-Event-ID` the client sent: the reader starts right after that event, taking the stream over from a
   * reader still attached (a client that reconnects after a break). Undefined: the reader starts after what earlier
   * readers took, and a stream that has a reader is refused (409).
   */
  readonly cursor: string | undefined;
}

/** A connection as any node sees it. Obtained per request; holds no resources. */
export interface BackendConnection {
  readonly connectionId: string;
  /** The credential's fingerprint it was opened with (`BackendInitializeInput.credential`); undefined: none. */
  readonly credential?: string | undefined;
  /**
   * Hands a client request or notification to the agent (wherever it runs). Resolves once the message is accepted
   * (the server answers 202), or with why not: 429 when the agent or the client is too far behind, 400 for an
   * over-long id, 404 when the connection ended meanwhile, 499 when `signal` aborted while waiting.
   */
  send(input: ClientCallInput): Promise<Refusal | undefined>;
  /**
   * Hands a client response to an agent request to the agent. A response to a request that came on a session
   * stream must carry that session's `Acp-Session-Id` (400 otherwise); a response to an unknown id is passed on.
   */
  sendResponse(input: ClientResponseInput): Promise<Refusal | undefined>;
  /**
   * Opens a stream for one reader. Refusals: 409 (it has a reader and no cursor was given), 429 (too many session
   * streams open), 404 (the connection ended), 400 (a cursor that is not one of this stream's ids), 410 (a cursor
   * older than the stream keeps: the events after it are gone).
   */
  openStream(input: OpenStreamInput): Promise<StreamReader | Refusal>;
}

/**
 * One reader of one stream (an SSE response body). Until `release()`, no other reader without a cursor can open the
 * stream. Events are handed over in stream order, each once to this reader, as SSE bytes (`sse-format.ts` writes
 * them: `id: <id>` and `data: <json>` lines, then a blank line).
 */
export interface StreamReader {
  /**
   * The SSE bytes of the events ready now, oldest first: whole events, about `maxChars` UTF-16 units of JSON (at
   * least one event when any is ready); undefined when none is. Synchronous: the hot path.
   */
  take(maxChars: number): Uint8Array | undefined;
  /** True when nothing is ready and nothing more will come: the stream ended, or another reader took it over. */
  readonly ended: boolean;
  /** Resolves once an event is ready or the reader has ended (at once if either is already true). */
  wait(): Promise<void>;
  /** The reader is done (the response ended or was cancelled): the stream can be opened again. Idempotent. */
  release(): void;
}
