/**
 * A backend written against the official SDK's `AcpHttpBackend` SPI (as a program written for the official server
 * would have one), to show that acpkit's `httpBackend` option runs it: it hosts each connection's agent itself,
 * routes by the SPI's rules (responses by the route of their request, agent messages by `params.sessionId`), keeps
 * each stream as a mailbox with event ids and leases read from a cursor, and refuses a second lease with the SPI's
 * stream-in-use error. Several backends may share one `SpiStore` (nodes of one cluster, in one process). Nothing here
 * runs on its own.
 */
import { randomUUID } from "node:crypto";
import type { AgentConnector } from "../../../../src/acp/agent-connector.js";
import type {
  AcpHttpAcceptResult,
  AcpHttpBackend,
  AcpHttpLeaseResult,
  AcpHttpOutboundLease,
  AcpHttpResponseRoute,
} from "../../../../src/remote/server/backend/official-backend.js";

type Message = { id?: string | number | null; method?: string; params?: any; result?: any; error?: any };

/** The official SPI's error with an HTTP status (`AcpHttpBackendError`), as a backend author declares it. */
export class SpiBackendError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string | number,
  ) {
    super(message);
    this.name = "AcpHttpBackendError";
  }
}

/** The SPI's "stream already has a receiver" error. */
class StreamInUseError extends Error {
  constructor() {
    super("Outbound stream already has an active receiver");
    this.name = "HttpBackendStreamInUseError";
  }
}

const key = (id: unknown) => JSON.stringify(id);

/** One stream: every event with its id, what leases took, one lease at a time. */
class Mailbox {
  readonly events: Array<{ id: string; value: Message }> = [];
  delivered = 0;
  leased = false;
  finished = false;
  #wake: (() => void) | undefined;

  constructor(private readonly nextId: () => string) {}

  push(value: Message): void {
    this.events.push({ id: this.nextId(), value });
    this.wake();
  }

  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  acquire(cursor: string | undefined): AcpHttpOutboundLease {
    if (this.leased) throw new StreamInUseError();
    let position = this.delivered;
    if (cursor !== undefined) {
      const index = this.events.findIndex((event) => event.id === cursor);
      if (index === -1) throw new SpiBackendError(410, `cursor ${cursor} is unknown on this stream`, "cursor_expired");
      position = index + 1;
    }
    this.leased = true;
    let released = false;
    return {
      receive: async (): Promise<AcpHttpLeaseResult> => {
        for (;;) {
          if (released) return { done: true };
          if (position < this.events.length) {
            const event = this.events[position++]!;
            this.delivered = Math.max(this.delivered, position);
            return { done: false, value: event.value, id: event.id };
          }
          if (this.finished) return { done: true };
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      },
      release: () => {
        if (released) return;
        released = true;
        this.leased = false;
        this.wake();
      },
    };
  }
}

/** A connection: its agent (hosted here), its streams, and the routes of requests in flight. */
class SpiConnection {
  readonly id = randomUUID();
  readonly #toAgent: WritableStreamDefaultWriter<unknown>;
  readonly #fromAgent: ReadableStreamDefaultReader<unknown>;
  readonly #streams = new Map<string, Mailbox>();
  readonly pendingRoutes = new Map<string, AcpHttpResponseRoute>();
  readonly clientRoutes = new Map<string, AcpHttpResponseRoute>();
  #lastId = 0;

  constructor(agent: AgentConnector) {
    const toAgent = new TransformStream<unknown, unknown>();
    const fromAgent = new TransformStream<unknown, unknown>();
    this.#toAgent = toAgent.writable.getWriter();
    this.#fromAgent = fromAgent.readable.getReader();
    agent.connect({ readable: toAgent.readable, writable: fromAgent.writable } as never);
  }

  mailbox(route: AcpHttpResponseRoute): Mailbox {
    const name = route === "connection" ? "" : route.session;
    let mailbox = this.#streams.get(name);
    if (mailbox === undefined) {
      mailbox = new Mailbox(() => String(++this.#lastId));
      this.#streams.set(name, mailbox);
    }
    return mailbox;
  }

  write(message: unknown): Promise<void> {
    return this.#toAgent.write(message);
  }

  /** Sends initialize and reads the agent's first message, which must answer it. */
  async initialize(message: Message): Promise<unknown> {
    await this.write(message);
    const { value, done } = await this.#fromAgent.read();
    if (done || (value as Message).id !== message.id) throw new Error("Expected initialize response from agent");
    void this.#route();
    return value;
  }

  async #route(): Promise<void> {
    for (;;) {
      const { value, done } = await this.#fromAgent.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      const message = value as Message;
      if (message.method === undefined) {
        const route = this.pendingRoutes.get(key(message.id)) ?? "connection";
        this.pendingRoutes.delete(key(message.id));
        this.mailbox(route).push(message);
        continue;
      }
      const sessionId = message.params?.sessionId;
      const route: AcpHttpResponseRoute = typeof sessionId === "string" ? { session: sessionId } : "connection";
      if (message.id !== undefined) this.clientRoutes.set(key(message.id), route);
      this.mailbox(route).push(message);
    }
    this.shutdown();
  }

  shutdown(): void {
    for (const mailbox of this.#streams.values()) {
      mailbox.finished = true;
      mailbox.wake();
    }
    void this.#toAgent.close().catch(() => {});
  }
}

/** The state the nodes share. */
export class SpiStore {
  readonly connections = new Map<string, SpiConnection>();
}

/** One node's backend over a shared store. */
export class OfficialShapedBackend implements AcpHttpBackend {
  touches = 0;

  constructor(private readonly store: SpiStore) {}

  async initialize(input: { agent: AgentConnector; message: unknown; signal: AbortSignal }) {
    const message = input.message as Message;
    if (message.id === undefined || message.id === null) throw new Error("initialize needs an id");
    const connection = new SpiConnection(input.agent);
    const response = await connection.initialize(message);
    this.store.connections.set(connection.id, connection);
    return { connectionId: connection.id, response };
  }

  async loadConnection({ connectionId }: { connectionId: string }) {
    return this.store.connections.has(connectionId) ? { connectionId } : undefined;
  }

  async touchConnection(): Promise<void> {
    this.touches++;
  }

  async acceptClientMethodMessage(input: {
    connectionId: string;
    message: unknown;
    route: AcpHttpResponseRoute;
    responseRoute: AcpHttpResponseRoute;
  }): Promise<AcpHttpAcceptResult> {
    const connection = this.store.connections.get(input.connectionId);
    if (!connection) return { ok: false, status: 404, message: "Unknown Acp-Connection-Id" };
    if (input.route !== "connection") connection.mailbox(input.route);
    const message = input.message as Message;
    if (message.id !== undefined) connection.pendingRoutes.set(key(message.id), input.responseRoute);
    await connection.write(message);
    return { ok: true };
  }

  async acceptClientResponse(input: {
    connectionId: string;
    message: unknown;
    headerSessionId: string | null;
  }): Promise<AcpHttpAcceptResult> {
    const connection = this.store.connections.get(input.connectionId);
    if (!connection) return { ok: false, status: 404, message: "Unknown Acp-Connection-Id" };
    const message = input.message as Message;
    const route = connection.clientRoutes.get(key(message.id));
    if (route !== undefined && route !== "connection") {
      if (input.headerSessionId === null) return { ok: false, status: 400, message: "Missing Acp-Session-Id" };
      if (input.headerSessionId !== route.session)
        return { ok: false, status: 400, message: "Mismatched Acp-Session-Id" };
    }
    connection.clientRoutes.delete(key(message.id));
    await connection.write(message);
    return { ok: true };
  }

  async openConnectionStream(input: { connectionId: string; cursor?: string }) {
    return this.store.connections.get(input.connectionId)?.mailbox("connection").acquire(input.cursor);
  }

  async openSessionStream(input: { connectionId: string; sessionId: string; cursor?: string }) {
    return this.store.connections.get(input.connectionId)?.mailbox({ session: input.sessionId }).acquire(input.cursor);
  }

  async closeConnection({ connectionId }: { connectionId: string }): Promise<boolean> {
    const connection = this.store.connections.get(connectionId);
    if (!connection) return false;
    this.store.connections.delete(connectionId);
    connection.shutdown();
    return true;
  }

  async close(): Promise<void> {
    for (const [id, connection] of this.store.connections) {
      this.store.connections.delete(id);
      connection.shutdown();
    }
  }
}
