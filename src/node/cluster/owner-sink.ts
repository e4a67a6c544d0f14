/**
 * Where the agent of a connection this node owns writes: each message becomes an event of its stream, with the next
 * id of the connection, written to the database in batches (`EventWriter`). On the way it notes what an adopting node
 * will need: the sessions the agent opened, and the `session/prompt` requests it has yet to answer. The agent is made
 * to wait (`whenRoom`) while `maxBufferedBytes` of its output is not yet written. During an adoption the agent's
 * replies to the adopting node's own requests, and the updates it replays while reloading a session, are withheld
 * (`intercept`): the client saw them already.
 */
import { idKey } from "../../remote/http-protocol.js";
import type { ResolvedLimits } from "../../remote/server/limits.js";
import { Waiters, type OutputSink } from "../../remote/server/output-sink.js";
import type { EventWriter } from "./event-writer.js";

const RESOLVED = Promise.resolve();

/** What the sink is told about the connection it writes for. */
export interface OwnerSinkOptions {
  readonly connectionId: string;
  readonly writer: EventWriter;
  readonly limits: ResolvedLimits;
  /** The lease token the writes are made under. */
  readonly token: number;
  /** The last event id already used on the connection (0 for a new one). */
  readonly lastEventId: number;
  /** Sessions already known (an adopted connection's). */
  readonly sessions?: Iterable<string>;
  /** A write failed for good (the database stayed away past the retry bound): the connection must end. */
  readonly onFailure: (error: unknown) => void;
}

export class OwnerSink implements OutputSink {
  readonly #options: OwnerSinkOptions;
  readonly #sessions: Set<string>;
  /** Keys of the `session/prompt` requests the agent has yet to answer. */
  readonly #prompts = new Set<string>();
  /** Keys (`c:` + id key) of the agent's requests the client has yet to answer. */
  readonly #clientRequests = new Set<string>();
  /** `session/new`, `load`, `resume`, `fork` requests the agent has yet to answer: their params, by key. */
  readonly #opening = new Map<string, Record<string, unknown>>();
  readonly #room = new Waiters();
  #lastId: number;
  #pendingChars = 0;
  #done = false;
  #failed = false;
  /** Set during an adoption: returns true for a message that must not reach the client. */
  intercept: ((text: string, sessionId: string | undefined) => boolean) | undefined;

  constructor(options: OwnerSinkOptions) {
    this.#options = options;
    this.#lastId = options.lastEventId;
    this.#sessions = new Set(options.sessions ?? []);
  }

  get lastEventId(): number {
    return this.#lastId;
  }

  get sessions(): ReadonlySet<string> {
    return this.#sessions;
  }

  get backlogged(): boolean {
    return this.#pendingChars >= this.#options.limits.maxBufferedBytes;
  }

  get bufferedAmount(): number {
    return this.#pendingChars;
  }

  /**
   * A `session/prompt` request reached the agent: remembered (in the database too, unless `recorded`: the inbox take
   * wrote its row) until it is answered. Resolves once its row is committed: an adopting node then answers it if this
   * node dies (the POST that carried it is acknowledged only then).
   */
  promptStarted(id: unknown, sessionId: string, recorded = false): Promise<void> {
    const key = idKey(id);
    if (key === undefined || this.#done) return Promise.resolve();
    this.#prompts.add(key);
    if (recorded) return Promise.resolve();
    const { connectionId, token } = this.#options;
    const written = this.#options.writer.add({
      kind: "prompt",
      requestKind: "prompt",
      connectionId,
      token,
      key,
      sessionId,
      requestId: JSON.stringify(id),
    });
    this.#track(written);
    return written;
  }

  /** The client answered an agent request (`id` as the client knows it): no longer open. */
  clientAnswered(id: unknown): void {
    const key = idKey(id);
    if (key === undefined || !this.#clientRequests.delete(`c:${key}`) || this.#done) return;
    const { connectionId, token } = this.#options;
    this.#track(this.#options.writer.add({ kind: "answered", connectionId, token, key: `c:${key}` }));
  }

  /**
   * A request that opens a session (`session/new`, `load`, `resume`, `fork`) reached the agent: once answered, its
   * session is recorded with these params (the `cwd` and MCP servers an adopting node reattaches it with).
   */
  sessionRequested(id: unknown, params: Record<string, unknown>): void {
    const key = idKey(id);
    if (key !== undefined && !this.#done) this.#opening.set(key, params);
  }

  deliver(text: string, sessionId: string | undefined): void {
    if (this.#done) return;
    if (this.intercept?.(text, sessionId)) return;
    const { connectionId, token, writer } = this.#options;
    if (sessionId !== undefined && !this.#sessions.has(sessionId)) this.#addSession(sessionId);
    // Session updates are most of the traffic and are neither answers nor new sessions: not parsed.
    if (!text.includes('"session/update"')) this.#inspect(text, sessionId);
    const id = ++this.#lastId;
    this.#pendingChars += text.length;
    this.#track(
      writer.add({ kind: "event", connectionId, token, stream: sessionId ?? "", id, body: text }),
      text.length,
    );
  }

  /**
   * An agent request to the client is noted until answered; an answer to a prompt is noted; a session id in an
   * answer (`session/new`, `session/fork`) is a session.
   */
  #inspect(text: string, stream: string | undefined): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!("id" in message)) return;
    if ("method" in message) return this.#clientRequest(message.id, stream);
    const key = idKey(message.id);
    if (key !== undefined && this.#prompts.delete(key)) {
      const { connectionId, token } = this.#options;
      this.#track(this.#options.writer.add({ kind: "answered", connectionId, token, key }));
    }
    const params = key === undefined ? undefined : this.#opening.get(key);
    if (params === undefined) return;
    this.#opening.delete(key!);
    const result = message.result as { sessionId?: unknown } | undefined;
    if (result === undefined || result === null) return;
    const sessionId = typeof result.sessionId === "string" ? result.sessionId : params.sessionId;
    if (typeof sessionId === "string") this.#addSession(sessionId, params);
  }

  #clientRequest(id: unknown, stream: string | undefined): void {
    const key = idKey(id);
    if (key === undefined) return;
    this.#clientRequests.add(`c:${key}`);
    const { connectionId, token } = this.#options;
    this.#track(
      this.#options.writer.add({
        kind: "prompt",
        requestKind: "client",
        connectionId,
        token,
        key: `c:${key}`,
        sessionId: stream ?? "",
        requestId: JSON.stringify(id),
      }),
    );
  }

  #addSession(sessionId: string, params?: Record<string, unknown>): void {
    if (this.#sessions.has(sessionId) && params === undefined) return;
    this.#sessions.add(sessionId);
    const { connectionId, token } = this.#options;
    const { cwd, mcpServers } = params ?? {};
    this.#track(
      this.#options.writer.add({
        kind: "session",
        connectionId,
        token,
        sessionId,
        params: params === undefined ? undefined : JSON.stringify({ cwd, mcpServers: mcpServers ?? [] }),
      }),
    );
  }

  #track(written: Promise<void>, chars = 0): void {
    written.then(
      () => {
        if (chars === 0) return;
        this.#pendingChars -= chars;
        if (!this.backlogged) this.#room.wakeAll();
      },
      (error: unknown) => {
        if (this.#failed) return;
        this.#failed = true;
        this.#options.onFailure(error);
      },
    );
  }

  whenRoom(): Promise<void> {
    if (this.#done || !this.backlogged) return RESOLVED;
    return this.#room.wait();
  }

  /** No more output: what is queued is still written (readers anywhere get it). */
  finish(): void {
    this.#done = true;
    this.#room.wakeAll();
  }

  /** The connection is gone: nothing more is accepted (writes already queued still land; readers end anyway). */
  abort(): void {
    this.#done = true;
    this.#room.wakeAll();
  }
}
