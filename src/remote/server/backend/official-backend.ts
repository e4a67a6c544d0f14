/**
 * The official SDK's backend shape (`AcpHttpBackend`, `httpBackend` option of its `AcpServer`; experimental upstream,
 * in the SDK's pull request #198 and not in a release yet) and its adapter to acpkit's seam, so a backend written for
 * the official server serves acpkit's. The shapes below are declared from the SPI's documented members; only what
 * the adapter calls is required.
 *
 * What maps: initialize, loadConnection (the lookup), touchConnection (after an accepted POST or an opened stream),
 * acceptClientMethodMessage (with the route and the response route the server computed), acceptClientResponse,
 * openConnectionStream / openSessionStream (with `Last-Event-ID` as the cursor; each lease becomes a reader, event
 * ids included), closeConnection, close; `{ ok: false, status, message }` results, errors with a numeric `status`
 * (and `code`), and the stream-in-use error (409). What does not: the official backend hosts its agents itself, so
 * acpkit's per-connection limits, `maxConnections`, `stats()`, connection events, idle timeouts and graceful close
 * do not apply to them; `generateServerRequestId` is the backend's own business.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport
 */
import type { AgentConnector } from "../../../acp/agent-connector.js";
import { responseStreamOf } from "../routing.js";
import type { ConnectionEnd } from "../server-connection.js";
import {
  ServerBackendError,
  type BackendConnection,
  type BackendInitializeInput,
  type BackendInitializeResult,
  type ClientCallInput,
  type ClientResponseInput,
  type NodeBackend,
  type OpenStreamInput,
  type Refusal,
  type ServerBackend,
  type StreamReader,
} from "./backend.js";
import { encodeSse, sseEventText } from "../sse-format.js";

/** Where the official SPI routes a message or a response: the connection stream or a session's. */
export type AcpHttpResponseRoute = "connection" | { readonly session: string };

/** What an official lease's `receive()` gives: a message (maybe with an event id), an id alone, or the end. */
export type AcpHttpLeaseResult =
  | { readonly done: false; readonly value: unknown; readonly id?: string }
  | { readonly done: false; readonly value?: undefined; readonly id: string }
  | { readonly done: true; readonly value?: unknown; readonly id?: string };

/** An official stream lease: one receiver until `release()`. */
export interface AcpHttpOutboundLease {
  receive(): Promise<AcpHttpLeaseResult>;
  release(): void;
}

/** An official `{ ok, status, message }` result. */
export type AcpHttpAcceptResult =
  { readonly ok: true } | { readonly ok: false; readonly status: number; readonly message: string };

/** The official SDK's `AcpHttpBackend` shape, as the adapter uses it. */
export interface AcpHttpBackend {
  readonly generateServerRequestId?: () => string | number;
  initialize(input: {
    readonly agent: AgentConnector;
    readonly message: unknown;
    readonly signal: AbortSignal;
  }): Promise<{ readonly connectionId: string; readonly response: unknown }>;
  loadConnection(input: { readonly connectionId: string }): Promise<{ readonly connectionId: string } | undefined>;
  touchConnection(input: { readonly connectionId: string }): Promise<void>;
  acceptClientMethodMessage(input: {
    readonly connectionId: string;
    readonly message: unknown;
    readonly route: AcpHttpResponseRoute;
    readonly responseRoute: AcpHttpResponseRoute;
  }): Promise<AcpHttpAcceptResult>;
  acceptClientResponse(input: {
    readonly connectionId: string;
    readonly message: unknown;
    readonly headerSessionId: string | null;
  }): Promise<AcpHttpAcceptResult>;
  openConnectionStream(input: {
    readonly connectionId: string;
    readonly cursor?: string;
  }): Promise<AcpHttpOutboundLease | undefined>;
  openSessionStream(input: {
    readonly connectionId: string;
    readonly sessionId: string;
    readonly cursor?: string;
  }): Promise<AcpHttpOutboundLease | undefined>;
  closeConnection(input: { readonly connectionId: string }): Promise<boolean>;
  close(): Promise<void>;
}

/** acpkit's seam over an official-shaped backend (what `httpBackend` becomes). */
export function officialBackend(backend: AcpHttpBackend): ServerBackend {
  let nodes = 0;
  return { bind: () => new OfficialNodeBackend(backend, `official-${++nodes}`) };
}

class OfficialNodeBackend implements NodeBackend {
  constructor(
    private readonly backend: AcpHttpBackend,
    readonly nodeId: string,
  ) {}

  async initialize(input: BackendInitializeInput): Promise<BackendInitializeResult> {
    const result = await official(() =>
      this.backend.initialize({ agent: input.connector, message: input.message, signal: input.signal }),
    );
    return { connectionId: result.connectionId, text: JSON.stringify(result.response) };
  }

  async connection(connectionId: string): Promise<BackendConnection | undefined> {
    const loaded = await official(() => this.backend.loadConnection({ connectionId }));
    return loaded === undefined ? undefined : new OfficialConnection(this.backend, loaded.connectionId);
  }

  async closeConnection(connectionId: string, _end: ConnectionEnd): Promise<boolean> {
    return official(() => this.backend.closeConnection({ connectionId }));
  }

  async close(): Promise<void> {
    await this.backend.close();
  }
}

class OfficialConnection implements BackendConnection {
  constructor(
    private readonly backend: AcpHttpBackend,
    readonly connectionId: string,
  ) {}

  async send(input: ClientCallInput): Promise<Refusal | undefined> {
    const { connectionId } = this;
    const route: AcpHttpResponseRoute = input.sessionId === undefined ? "connection" : { session: input.sessionId };
    const responseSession = responseStreamOf(String(input.message.method), input.sessionId);
    const responseRoute: AcpHttpResponseRoute =
      responseSession === undefined ? "connection" : { session: responseSession };
    const result = await official(() =>
      this.backend.acceptClientMethodMessage({ connectionId, message: input.message, route, responseRoute }),
    );
    if (!result.ok) return { status: result.status, message: result.message };
    await official(() => this.backend.touchConnection({ connectionId }));
    return undefined;
  }

  async sendResponse(input: ClientResponseInput): Promise<Refusal | undefined> {
    const { connectionId } = this;
    const result = await official(() =>
      this.backend.acceptClientResponse({
        connectionId,
        message: input.message,
        headerSessionId: input.headerSessionId ?? null,
      }),
    );
    if (!result.ok) return { status: result.status, message: result.message };
    await official(() => this.backend.touchConnection({ connectionId }));
    return undefined;
  }

  async openStream(input: OpenStreamInput): Promise<StreamReader | Refusal> {
    const { connectionId } = this;
    const cursor = input.cursor === undefined ? {} : { cursor: input.cursor };
    const lease = await official(() =>
      input.sessionId === undefined
        ? this.backend.openConnectionStream({ connectionId, ...cursor })
        : this.backend.openSessionStream({ connectionId, sessionId: input.sessionId, ...cursor }),
    );
    if (lease === undefined)
      return {
        status: 404,
        message:
          "Not Found: unknown Acp-Connection-Id (it ended, or never existed); POST initialize to start a new connection",
      };
    try {
      await official(() => this.backend.touchConnection({ connectionId }));
    } catch (error) {
      lease.release();
      throw error;
    }
    return new LeaseReader(lease);
  }
}

/**
 * Runs an official backend call, turning its errors into acpkit's: one with a numeric `status` (the official
 * `AcpHttpBackendError`) keeps its status, message and `code`; the stream-in-use error becomes 409.
 */
async function official<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    if (error.name === "HttpBackendStreamInUseError")
      throw new ServerBackendError(409, `Conflict: ${error.message}; one reader per stream`, { cause: error });
    const { status, code } = error as { status?: unknown; code?: unknown };
    if (typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599) {
      throw new ServerBackendError(status, error.message, {
        cause: error,
        ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
      });
    }
    throw error;
  }
}

/** An official lease read as acpkit's reader: one `receive()` at a time, its result held until taken. */
class LeaseReader implements StreamReader {
  readonly #lease: AcpHttpOutboundLease;
  #ready: AcpHttpLeaseResult | undefined;
  #receiving: Promise<void> | undefined;
  #ended = false;
  #released = false;

  constructor(lease: AcpHttpOutboundLease) {
    this.#lease = lease;
  }

  get ended(): boolean {
    return this.#ended && this.#ready === undefined;
  }

  take(): Uint8Array | undefined {
    const ready = this.#ready;
    if (ready === undefined || ready.done) return undefined;
    this.#ready = undefined;
    // An id alone moves the client's position without an event (an `id:` line and a blank line).
    return encodeSse(sseEventText(ready.id, ready.value === undefined ? "" : JSON.stringify(ready.value)));
  }

  wait(): Promise<void> {
    if (this.#ready !== undefined || this.#ended) return Promise.resolve();
    this.#receiving ??= this.#lease.receive().then(
      (result) => {
        this.#receiving = undefined;
        if (result.done) {
          this.#ended = true;
          return;
        }
        this.#ready = result;
      },
      () => {
        this.#receiving = undefined;
        this.#ended = true;
      },
    );
    return this.#receiving;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#ended = true;
    this.#ready = undefined;
    this.#lease.release();
  }
}
