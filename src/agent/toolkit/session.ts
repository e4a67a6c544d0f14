/**
 * One live session of the toolkit: its setup (cwd, additional roots), the author's state, its permission memory,
 * its prompt-turn slot, and `send`, which both notifies the client (`session/update`) and records the update in the
 * store so `session/load` can replay exactly what the client saw.
 * @see https://agentclientprotocol.com/protocol/session-setup
 */
import type { SendRequestOptions } from "../../jsonrpc/index.js";
import { MessageTooLargeError, UnserializableValueError } from "../../jsonrpc/local-errors.js";
import type { Logger } from "../../jsonrpc/logger.js";
import type { ClientCapabilities, SessionInfo, SessionUpdate } from "../../protocol/index.js";
import type { SessionCommands } from "./commands.js";
import type { SessionSettings } from "./config-options.js";
import type { McpSessionTools } from "./mcp-connector.js";
import { PermissionMemory } from "./permissions.js";
import type { ReplayReport } from "./replay.js";
import { messageLimitOf, updateMessageBytes } from "./replay-limit.js";
import { TurnSlot } from "./prompt-turn.js";
import { SessionOutbox } from "./session-outbox.js";
import type { SessionRecord, SessionStore } from "./session-store.js";

/** What the toolkit needs of the connection to the client; an `AgentSideConnection` is one. */
export interface ClientPort {
  notify(method: string, params?: unknown): Promise<void>;
  request<R = unknown>(method: string, params?: unknown, options?: SendRequestOptions): Promise<R>;
  /** Aborted when the connection closes: every turn is then cancelled. */
  readonly signal?: AbortSignal;
  /**
   * The largest message the port sends, in UTF-8 bytes, when it knows one; without it the limit of the acpkit
   * connection behind the port is used (see `messageLimitOf`).
   */
  readonly maxMessageBytes?: number;
}

/** How a session came to be live on this connection (`fork`: a new session copied from another, `session/fork`). */
export type SessionOrigin = "new" | "load" | "resume" | "fork";

/** What the manager passes to build a session. */
export interface SessionInit {
  sessionId: string;
  cwd: string;
  additionalDirectories: string[];
  title?: string | null;
  client: ClientPort;
  store: SessionStore | undefined;
  logger: Logger;
  /** The client's capabilities from `initialize` (read when needed). */
  clientCapabilities?: () => ClientCapabilities | undefined;
}

export class ToolkitSession<S = unknown> {
  readonly sessionId: string;
  /** Absolute; the base for relative paths. */
  readonly cwd: string;
  /** Absolute additional workspace roots; the effective root set is `[cwd, ...additionalDirectories]`. */
  readonly additionalDirectories: string[];
  /** The agent author's per-session state (from the toolkit's `createState`). */
  state!: S;
  /** Remembered "always" permission answers. */
  readonly permissions = new PermissionMemory();
  /** The prompt turns: one runs at a time. */
  readonly turns = new TurnSlot();
  /**
   * The connection to the client, for this session: a request or notification sent through it waits until the
   * updates offered before it were sent, so it never overtakes them.
   */
  readonly client: ClientPort;
  readonly logger: Logger;
  /** Modes and config options (when the agent declared any). */
  settings: SessionSettings<any> | undefined;
  /** Slash commands (when the agent declared any). */
  commands: SessionCommands<any> | undefined;
  /** The session's MCP servers (when the agent was given an MCP connector). */
  mcp: McpSessionTools | undefined;
  /** What the `session/load` that made this session live did beyond replaying each record as is (split, skipped). */
  replay: ReplayReport | undefined;
  #title: string | null;
  readonly #capabilities: (() => ClientCapabilities | undefined) | undefined;
  readonly #cleanups: Array<() => unknown> = [];
  #disposed: Promise<void> | undefined;
  readonly #store: SessionStore | undefined;
  readonly #outbox: SessionOutbox | undefined;
  readonly #raw: ClientPort;

  constructor(init: SessionInit) {
    this.sessionId = init.sessionId;
    this.cwd = init.cwd;
    this.additionalDirectories = [...init.additionalDirectories];
    this.#title = init.title ?? null;
    this.logger = init.logger;
    this.#store = init.store;
    const raw = init.client;
    this.#raw = raw;
    const outbox =
      init.store === undefined
        ? undefined
        : new SessionOutbox({
            sessionId: init.sessionId,
            store: init.store,
            logger: init.logger,
            notify: (update) => raw.notify("session/update", { sessionId: init.sessionId, update }),
          });
    this.#outbox = outbox;
    this.client = outbox === undefined ? raw : orderedClient(raw, outbox);
    this.#capabilities = init.clientCapabilities;
  }

  /** The client's capabilities from `initialize` (`{}` if unknown): check them before calling gated methods. */
  get clientCapabilities(): ClientCapabilities {
    return (
      this.#capabilities?.() ?? (this.client as { clientCapabilities?: ClientCapabilities }).clientCapabilities ?? {}
    );
  }

  /** The connection's outgoing message size limit in UTF-8 bytes, when known (see `messageLimitOf`). */
  get maxMessageBytes(): number | undefined {
    return messageLimitOf(this.#raw);
  }

  /**
   * Registers cleanup to run once when the session closes, is deleted, or the connection ends (last added runs first).
   */
  onDispose(cleanup: () => unknown): void {
    if (this.#disposed !== undefined)
      void Promise.resolve()
        .then(cleanup)
        .catch(() => {});
    else this.#cleanups.push(cleanup);
  }

  /** Runs the cleanups (once; later calls get the same promise). Failures are logged, never thrown. */
  dispose(): Promise<void> {
    return (this.#disposed ??= (async () => {
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        try {
          await cleanup();
        } catch (error) {
          this.logger.error("a session cleanup failed", {
            sessionId: this.sessionId,
            detail: error instanceof Error ? error.message : String(error),
          });
        }
      }
    })());
  }

  get title(): string | null {
    return this.#title;
  }

  /** The effective root set: `[cwd, ...additionalDirectories]`. */
  get roots(): string[] {
    return [this.cwd, ...this.additionalDirectories];
  }

  /**
   * Records a `session/update` for replay, then sends it: write-ahead, so an update the client saw is always in the
   * history, even if the agent is killed right after. Group commit: the updates of one tick (and those offered while
   * the previous batch was being written) are appended as one batch, made durable once (the file store fsyncs each
   * append), then sent, in order. Resolves once the update is accepted; while 512 updates are already waiting, once
   * there is room (backpressure from the disk and the client). Rejects once sending failed (the connection is gone).
   * An update that could not be sent (larger than the connection's message limit: `MessageTooLargeError`, or not
   * serializable: `UnserializableValueError`) is refused at once and not recorded, so the history holds only what
   * can be replayed. Without a store it is a plain notification. Prefer a turn's `send` during a turn: it stops sending
   * once the turn was answered.
   */
  send(update: SessionUpdate): Promise<void> {
    if (this.#outbox === undefined) return this.client.notify("session/update", { sessionId: this.sessionId, update });
    const unsendable = this.#unsendable(update);
    if (unsendable !== undefined) return Promise.reject(unsendable);
    return this.#outbox.offer({ kind: "update", update }, true);
  }

  /** Why `update` could not be sent under the connection's message limit (checked only when the limit is known). */
  #unsendable(update: SessionUpdate): Error | undefined {
    const limit = this.maxMessageBytes;
    if (limit === undefined) return undefined;
    let bytes: number;
    try {
      bytes = updateMessageBytes(this.sessionId, update);
    } catch (error) {
      return new UnserializableValueError('the "session/update" message', error);
    }
    return bytes > limit ? new MessageTooLargeError(limit, bytes, "outgoing") : undefined;
  }

  /**
   * Records without sending: agent-private `data` records, or updates the client already has (its own prompt), in
   * order with the updates sent. Resolves once written (never rejects: a failed write is logged); `flush()` waits for
   * every pending write.
   */
  record(...records: SessionRecord[]): Promise<void> {
    const outbox = this.#outbox;
    if (outbox === undefined || records.length === 0) return Promise.resolve();
    for (const record of records) void outbox.offer(record, false);
    return outbox.written();
  }

  /** Sets (or clears, with null) the title: sends `session_info_update` and stores it for `session/list`. */
  async setTitle(title: string | null): Promise<void> {
    this.#title = title;
    const updatedAt = new Date().toISOString();
    await Promise.all([
      this.send({ sessionUpdate: "session_info_update", title, updatedAt }),
      this.touch({ title, updatedAt }),
    ]);
  }

  /** Updates the stored metadata (`updatedAt` defaults to now). */
  async touch(patch: { title?: string | null; updatedAt?: string } = {}): Promise<void> {
    if (this.#store === undefined) return;
    try {
      await this.#store.update(this.sessionId, { updatedAt: new Date().toISOString(), ...patch });
    } catch (error) {
      this.logger.error("could not update session metadata", {
        sessionId: this.sessionId,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** Resolves once every record handed over so far is durable (or failed and was logged), and every update sent. */
  async flush(): Promise<void> {
    await this.#outbox?.sent();
  }

  /**
   * Resolves once every record handed to the store before this call is durable (or failed and was logged); unlike
   * `flush()` it does not wait for records written meanwhile, so it ends even while a turn keeps streaming.
   */
  async recorded(): Promise<void> {
    await this.#outbox?.written();
  }

  /** The session as `session/list` reports it. */
  info(): SessionInfo {
    const info: SessionInfo = { sessionId: this.sessionId, cwd: this.cwd, title: this.#title };
    if (this.additionalDirectories.length > 0) info.additionalDirectories = [...this.additionalDirectories];
    return info;
  }
}

/** `client`, with every request and notification held until the outbox has sent what was offered before it. */
function orderedClient(client: ClientPort, outbox: SessionOutbox): ClientPort {
  return {
    notify: (method, params) =>
      outbox.busy ? outbox.sent().then(() => client.notify(method, params)) : client.notify(method, params),
    request: <R>(method: string, params?: unknown, options?: SendRequestOptions) =>
      outbox.busy
        ? outbox.sent().then(() => client.request<R>(method, params, options))
        : client.request<R>(method, params, options),
    get signal() {
      return client.signal;
    },
    get clientCapabilities() {
      return (client as { clientCapabilities?: ClientCapabilities }).clientCapabilities;
    },
  } as ClientPort;
}
